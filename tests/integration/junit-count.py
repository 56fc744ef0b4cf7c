#!/usr/bin/python3
"""Counts a JUnit XML file's test cases with junitparser (Debian's
python3-junitparser), a JUnit consumer that is not mayhem: one line
"suites N cases N failures N errors N skipped N names-unique yes|no"
counted from the cases it parsed, then one line per case:
"case RESULT NAME" (RESULT pass, failure, error or skipped)."""

import sys

from junitparser import Error, Failure, JUnitXml, Skipped


def result_of(case):
    for r in case.result:
        if isinstance(r, Failure):
            return "failure"
        if isinstance(r, Error):
            return "error"
        if isinstance(r, Skipped):
            return "skipped"
    return "pass"


def main(path):
    xml = JUnitXml.fromfile(path)
    suites = list(xml) if isinstance(xml, JUnitXml) else [xml]
    cases = [(suite, case) for suite in suites for case in suite]
    results = [result_of(case) for _, case in cases]
    names = [(case.classname, case.name) for _, case in cases]
    print("suites %d cases %d failures %d errors %d skipped %d names-unique %s" % (
        len(suites), len(cases), results.count("failure"), results.count("error"),
        results.count("skipped"), "yes" if len(set(names)) == len(names) else "no"))
    for (_, case), result in zip(cases, results):
        print("case %s %s" % (result, case.name))


if __name__ == "__main__":
    main(sys.argv[1])
