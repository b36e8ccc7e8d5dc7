# Holds a deleted file's blocks through a descriptor in flight on a Unix socket (SCM_RIGHTS):
# no /proc/PID/fd link and no mapping names the file. Usage: attack4-scm-rights.py PATH MIB
import os, socket, sys, time, array
path, mib = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_TRUNC, 0o600)
block = b"x" * (1 << 20)
for _ in range(mib):
    os.write(fd, block)
os.fsync(fd)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
a.sendmsg([b"f"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
os.close(fd)
os.unlink(path)
a.close()
print("ready", flush=True)
time.sleep(float(sys.argv[3]) if len(sys.argv) > 3 else 30)
