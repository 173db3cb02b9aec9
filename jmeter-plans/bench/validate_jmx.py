#!/usr/bin/env python3
"""Static checks of hand-written JMeter plans: well-formed XML, a <jmeterTestPlan>
root, every test element inside a <hashTree> followed by its own sibling <hashTree>,
no listeners saved in the plan, and every ${__P(name,default)} knob has a default.
Usage: validate_jmx.py plan.jmx [...]   (exit 1 on the first problem found per plan)"""
import re
import sys
import xml.etree.ElementTree as ET

LISTENERS = {"ResultCollector", "BackendListener", "Summariser", "JSR223Listener",
             "BeanShellListener", "ResultSaver", "SimpleDataWriter", "ViewResultsFullVisualizer"}


def check_tree(ht, path, problems):
    kids = list(ht)
    i = 0
    while i < len(kids):
        el = kids[i]
        if el.tag == "hashTree":
            problems.append(f"{path}: a <hashTree> without an element before it (child {i})")
            i += 1
            continue
        name = el.get("testname", el.tag)
        if el.tag in LISTENERS or el.get("guiclass", "").endswith("Visualizer"):
            problems.append(f"{path}/{name}: listener {el.tag} saved in the plan")
        if i + 1 >= len(kids) or kids[i + 1].tag != "hashTree":
            problems.append(f"{path}/{name}: <{el.tag}> has no sibling <hashTree>")
            i += 1
            continue
        check_tree(kids[i + 1], f"{path}/{name}", problems)
        i += 2


def validate(fn):
    problems = []
    try:
        root = ET.parse(fn).getroot()
    except ET.ParseError as e:
        return [f"not well-formed XML: {e}"]
    if root.tag != "jmeterTestPlan":
        problems.append(f"root is <{root.tag}>, not <jmeterTestPlan>")
    top = list(root)
    if len(top) != 1 or top[0].tag != "hashTree":
        problems.append("<jmeterTestPlan> must hold exactly one <hashTree>")
    else:
        check_tree(top[0], "", problems)
        if not any(k.tag == "TestPlan" for k in top[0]):
            problems.append("no <TestPlan>")
    text = open(fn, encoding="utf-8").read()
    for m in re.finditer(r"\$\{__P\(([^,)]*)\)\}", text):
        problems.append(f"property {m.group(1)!r} has no default")
    return problems


def main(argv):
    bad = 0
    for fn in argv:
        problems = validate(fn)
        if problems:
            bad += 1
            for p in problems:
                print(f"{fn}: {p}")
        else:
            print(f"{fn}: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
