#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# What the reference documents, and what the code accepts, one name a line
# (tests/integration/docs.sh compares them):
#   doc-keys.py help-flags      < `cordon run --help`    the flags
#   doc-keys.py help-values FLAG < `cordon run --help`   FLAG's a|b|c values
#   doc-keys.py man-flags FILE.scd                        the flags a man page documents
#   doc-keys.py man-keys FILE.scd                         the config keys it documents
#   doc-keys.py parser-keys src/core/config-parse.c       the keys the parser accepts
#   doc-keys.py schema-keys SCHEMA                        the keys the schema describes
# Keys are leaves: "isolation.limits.pids", "isolation.expose_paths[].mode".
import json, re, sys

FLAG = re.compile(r"(?<![\w-])(-{1,2}[A-Za-z][\w-]*)")


def help_entries(text):
    for line in text.splitlines():
        if line.startswith("  -"):
            yield re.split(r"\s{2,}", line.strip())[0]


def help_flags(text):
    return {f for e in help_entries(text) for f in FLAG.findall(e)}


def help_values(text, flag):
    for e in help_entries(text):
        m = re.match(re.escape(flag) + r" ([\w|]+)$", e)
        if m:
            return set(m.group(1).split("|"))
    return set()


def man_flags(text):
    return {f for line in text.splitlines() if line.startswith("*-") for f in re.findall(r"\*(-{1,2}[\w-]+)\*", line)}


def leaves(paths):
    return {p for p in paths if not any(q.startswith(p + ".") or q.startswith(p + "[]") for q in paths)}


def man_keys(text):
    keys = re.findall(r"^\*((?:isolation|shell_environment_policy)\.[\w.\[\]]+)\*", text, re.M)
    return leaves(set(keys))


def parser_keys(src):
    tables = {}
    for m in re.finditer(r"static int (\w+)\([^)]*\)\s*\{\s*static const member t\[\] = \{(.*?)\};", src, re.S):
        tables[m.group(1)] = re.findall(r'\{"(\w+)", (\w+)\}', m.group(2))
    entry = re.search(r"static int expose_field\(.*?\{.*?if \((.*?)\)\s*return 0;", src, re.S)
    fields = re.findall(r'streq\(key, "(\w+)"\)', entry.group(1))
    out = set()

    def walk(prefix, fn):
        if fn == "m_expose_paths":
            out.update(prefix + "[]." + f for f in fields)
        elif fn in tables:
            for name, sub in tables[fn]:
                walk(prefix + "." + name if prefix else name, sub)
        else:
            out.add(prefix)

    walk("", "apply_layer")
    return out


def schema_keys(schema):
    def resolve(s):
        while "$ref" in s:
            s = schema["$defs"][s["$ref"].split("/")[-1]]
        return s

    out = set()

    def walk(prefix, s):
        s = resolve(s)
        if "properties" in s:
            for name, sub in s["properties"].items():
                walk(prefix + "." + name, sub)
        elif s.get("type") == "array" and "properties" in resolve(s.get("items", {})):
            walk(prefix + "[]", s["items"])
        else:
            out.add(prefix)

    for section in ("isolation", "shell_environment_policy"):
        walk(section, schema["properties"][section])
    return out


def main():
    what = sys.argv[1]
    if what == "help-flags":
        names = help_flags(sys.stdin.read())
    elif what == "help-values":
        names = help_values(sys.stdin.read(), sys.argv[2])
    elif what == "man-flags":
        names = man_flags(open(sys.argv[2]).read())
    elif what == "man-keys":
        names = man_keys(open(sys.argv[2]).read())
    elif what == "parser-keys":
        names = parser_keys(open(sys.argv[2]).read())
    elif what == "schema-keys":
        names = schema_keys(json.load(open(sys.argv[2])))
    else:
        sys.exit("usage: doc-keys.py help-flags|help-values|man-flags|man-keys|parser-keys|schema-keys ...")
    print("\n".join(sorted(names)))


main()
