"""last_checkpoint.py DIR: the newest complete sharded checkpoint in DIR
(an index whose every shard is there and whole), printed as its index path;
exit status 1 when there is none."""
import json
import os
import re
import struct
import sys

d = sys.argv[1]
best = None
for name in os.listdir(d):
    m = re.fullmatch(r"step-(\d+)\.safetensors\.index\.json", name)
    if not m:
        continue
    try:
        with open(os.path.join(d, name)) as f:
            index = json.load(f)
        complete = True
        for shard in set(index["weight_map"].values()):
            path = os.path.join(d, shard)
            with open(path, "rb") as f:
                header = struct.unpack("<Q", f.read(8))[0]
                meta = json.loads(f.read(header))
            end = max(v["data_offsets"][1] for k, v in meta.items() if k != "__metadata__")
            complete = complete and os.path.getsize(path) == 8 + header + end
    except (OSError, ValueError, KeyError):
        complete = False
    if complete and (best is None or int(m.group(1)) > best[0]):
        best = (int(m.group(1)), os.path.join(d, name))
if best is None:
    sys.exit(1)
print(best[1])
