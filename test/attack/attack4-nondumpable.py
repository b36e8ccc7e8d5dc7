# Holds a deleted file open, then makes itself non-dumpable (prctl PR_SET_DUMPABLE 0): its
# /proc/PID/fd and maps become root's, closed to a non-root RTE of the same user.
# Usage: attack4-nondumpable.py PATH MIB SECONDS
import ctypes, os, sys, time
path, mib = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_TRUNC, 0o600)
for _ in range(mib):
    os.write(fd, b"x" * (1 << 20))
os.fsync(fd)
os.unlink(path)
if len(sys.argv) < 5 or sys.argv[4] != "dumpable":
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
print("ready", os.getpid(), flush=True)
time.sleep(float(sys.argv[3]))
