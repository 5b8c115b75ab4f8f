"""Peak memory of a command and its process tree: the sum of the proportional set sizes (PSS,
shared pages divided among their users) of the process and all its descendants, sampled every
0.2 s from /proc (Linux). Usage: ``python benchmarks/tree_memory.py dpproofs check``."""
import subprocess, sys, time, os
def pss(pid):
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"): return int(line.split()[1])
    except OSError: return 0
    return 0
def rss(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"): return int(line.split()[1])
    except OSError: return 0
    return 0
def children(pid):
    out=[pid]
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            for c in open(f"/proc/{pid}/task/{t}/children").read().split():
                out += children(int(c))
    except OSError: pass
    return out
p=subprocess.Popen(sys.argv[1:])
peak=(0,None)
while p.poll() is None:
    pids=children(p.pid)
    tot=sum(pss(x) for x in pids)
    if tot>peak[0]:
        peak=(tot,[(x, pss(x)//1024, rss(x)//1024, open(f"/proc/{x}/cmdline").read().replace('\0',' ')[:60] if os.path.exists(f"/proc/{x}") else '') for x in pids])
    time.sleep(0.2)
print(f"tree peak PSS {peak[0]//1024} MiB rc={p.returncode}", file=sys.stderr)
for row in peak[1] or []: print("  pid %s pss %s MiB rss %s MiB %s" % row, file=sys.stderr)
