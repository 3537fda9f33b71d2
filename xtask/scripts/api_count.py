#!/usr/bin/env python3
"""Counts the public API of a crate from rustdoc JSON: items reachable from the root
through public paths (modules, re-exports), their public fields, variants and inherent
methods (doc(hidden) items and trait impls left out).

    CARGO_TARGET_DIR=/tmp/api cargo +nightly rustdoc -p hooke --lib -- \
        -Z unstable-options --output-format json
    python3 xtask/scripts/api_count.py /tmp/api/doc/hooke.json [--list]
"""
import json, sys
doc = json.load(open(sys.argv[1]))
index = doc["index"]
root = doc["root"]
seen = set()
items = []   # (kind, path)
fields = []
def is_pub(it):
    return it.get("visibility") == "public"
def hidden(it):
    attrs = it.get("attrs") or []
    return any("doc(hidden)" in str(a) or "hidden" in str(a) and "doc" in str(a) for a in attrs)
def visit(iid, path):
    iid = str(iid)
    if iid in seen or iid not in index:
        return
    it = index[iid]
    if hidden(it):
        return
    seen.add(iid)
    inner = it["inner"]
    kind = next(iter(inner))
    name = it.get("name") or ""
    p = f"{path}::{name}" if name else path
    if kind == "module":
        if iid != str(root):
            items.append(("mod", p))
        for c in inner["module"]["items"]:
            ci = index.get(str(c))
            if ci is None: continue
            if is_pub(ci) or ci["inner"].get("use") is not None and is_pub(ci):
                visit(c, p if iid != str(root) else path)
        return
    if kind == "use":
        u = inner["use"]
        if u.get("id") is not None:
            tgt = index.get(str(u["id"]))
            if tgt is None: return
            if u.get("is_glob"):
                tk = next(iter(tgt["inner"]))
                if tk == "module":
                    for c in tgt["inner"]["module"]["items"]:
                        ci = index.get(str(c))
                        if ci is not None and is_pub(ci):
                            visit(c, path)
                elif tk == "enum":
                    pass
                return
            visit(u["id"], path)
        return
    items.append((kind, p))
    if kind == "struct":
        sk = inner["struct"]["kind"]
        fl = []
        if isinstance(sk, dict):
            if "plain" in sk: fl = sk["plain"]["fields"]
            elif "tuple" in sk: fl = [f for f in sk["tuple"] if f is not None]
        for f in fl:
            fi = index.get(str(f))
            if fi and is_pub(fi):
                fields.append(p + "." + (fi.get("name") or "?"))
        impls = inner["struct"]["impls"]
    elif kind == "enum":
        for v in inner["enum"]["variants"]:
            vi = index.get(str(v))
            if vi: items.append(("variant", p + "::" + vi["name"]))
        impls = inner["enum"]["impls"]
    else:
        impls = []
    for im in impls:
        ii = index.get(str(im))
        if not ii: continue
        imp = ii["inner"]["impl"]
        if imp.get("trait") is not None or imp.get("is_synthetic") or imp.get("blanket_impl"):
            continue
        for m in imp["items"]:
            mi = index.get(str(m))
            if mi and is_pub(mi) and not hidden(mi):
                mk = next(iter(mi["inner"]))
                items.append((mk, p + "::" + (mi.get("name") or "?")))
visit(root, doc["index"][str(root)]["name"])
from collections import Counter
c = Counter(k for k, _ in items)
print(f"items {len(items)} (fields {len(fields)}; total {len(items)+len(fields)})", dict(c))
if "--list" in sys.argv:
    for k, p in sorted(items, key=lambda x: x[1]): print(k, p)
    for f in sorted(fields): print("field", f)
