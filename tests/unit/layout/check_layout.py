#!/usr/bin/env python3
"""The layering README.md's Layout section describes, checked against the tree:
every userspace folder is named there and every folder named exists, and no
file includes a header of a folder above its own (lower layers never call
upward; format/ and filter/ stand side by side on fields/)."""
import os
import re
import sys

root = sys.argv[1]
us = os.path.join(root, "userspace")

# Floors, lowest first; a folder may include its own headers and those of
# folders on lower floors only.
FLOORS = [
    ["common"],
    ["output", "container"],
    ["metrics", "capture"],
    ["inspect"],
    ["requests", "profile"],
    ["tcp"],
    ["capfile", "fields", "topology", "tls"],
    ["filter", "format"],
    ["agent"],
]
floor = {d: i for i, ds in enumerate(FLOORS) for d in ds}
failed = []

folders = sorted(d for d in os.listdir(us) if os.path.isfile(os.path.join(us, d, "meson.build")))
for d in folders:
    if d not in floor:
        failed.append("userspace/%s has no floor in this test" % d)

readme = open(os.path.join(root, "README.md")).read()
m = re.search(r"^## Layout\n(.*?)(?=^## |\Z)", readme, re.S | re.M)
layout = m.group(1) if m else ""
if not layout:
    failed.append("README.md has no Layout section")
named = set(re.findall(r"`userspace/(\w+)", layout))
for d in folders:
    if d not in named:
        failed.append("README.md's Layout section does not name userspace/%s" % d)
for d in sorted(named):
    if d not in folders:
        failed.append("README.md's Layout section names userspace/%s, which does not exist" % d)

owner = {}
for d in folders:
    for f in os.listdir(os.path.join(us, d)):
        if f.endswith(".h"):
            owner.setdefault(f, set()).add(d)

inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
checked = 0
for d in folders:
    for f in sorted(os.listdir(os.path.join(us, d))):
        if not f.endswith((".c", ".h")):
            continue
        text = open(os.path.join(us, d, f), errors="replace").read()
        for h in inc.findall(text):
            base = os.path.basename(h)
            for o in owner.get(base, ()):
                checked += 1
                if o != d and d in floor and o in floor and floor[o] >= floor[d]:
                    failed.append("userspace/%s/%s includes %s of userspace/%s, a folder on its floor or above"
                                  % (d, f, base, o))

for line in failed:
    print("layout: " + line)
print("layout: %d folders, %d includes checked, %d problems" % (len(folders), checked, len(failed)))
sys.exit(1 if failed else 0)
