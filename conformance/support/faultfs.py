#!/usr/bin/python3
"""A passthrough FUSE file system whose faults are switched at run time, for the conformance suite.

Usage: /usr/bin/python3 faultfs.py BACKING_DIR MOUNTPOINT CONTROL_FILE
Needs Debian's fuse3 and python3-fusepy (the module is named `fusepy`). Runs in the foreground until
`fusermount3 -u MOUNTPOINT` or SIGTERM.

CONTROL_FILE lives outside the mount and holds one line, polled every 20 ms:
  normal                      pass everything through
  stall                       block matching calls until the line changes
  eio                         fail matching calls with EIO
  errno NAME                  fail matching calls with errno NAME (ENOSPC, EACCES, ...)
  delay MS                    sleep MS milliseconds before each matching call (per FUSE op)
followed by optional filters: ops=getattr,open,rename  path=/substring
A call matches when its op is listed (or no ops= is given) and its path contains the substring.
"""
import errno
import os
import sys
import threading
import time

from fusepy import FUSE, FuseOSError, Operations

POLL_SECONDS = 0.02
# Calls the kernel makes to set up and tear down the mount: faulting them would wedge mount/unmount.
NEVER_FAULTED = frozenset(('init', 'destroy'))


class Fault:
    """One parsed control line."""

    def __init__(self, line):
        words = line.split() or ['normal']
        self.line = line or 'normal'
        self.mode = words[0]
        self.arg = None
        self.ops = None
        self.path = None
        for word in words[1:]:
            key, sep, value = word.partition('=')
            if sep and key == 'ops':
                self.ops = frozenset(value.split(','))
            elif sep and key == 'path':
                self.path = value
            else:
                self.arg = word

    def matches(self, op, path):
        if self.mode == 'normal' or op in NEVER_FAULTED:
            return False
        if self.ops is not None and op not in self.ops:
            return False
        return self.path is None or self.path in str(path)


class Switchboard:
    """Holds the current fault; a stalled caller sleeps on the condition until the line changes."""

    def __init__(self, control_file):
        self.control_file = control_file
        self.changed = threading.Condition()
        self.fault = Fault('')
        self.refresh()
        threading.Thread(target=self.watch, daemon=True).start()

    def watch(self):
        while True:
            time.sleep(POLL_SECONDS)
            self.refresh()

    def refresh(self):
        try:
            with open(self.control_file) as f:
                line = f.read().strip()
        except FileNotFoundError:
            line = ''
        if (line or 'normal') == self.fault.line:
            return
        with self.changed:
            self.fault = Fault(line)
            self.changed.notify_all()
        print('faultfs: ' + self.fault.line, file=sys.stderr, flush=True)

    def admit(self, op, path):
        with self.changed:
            fault = self.fault
            while fault.mode == 'stall' and fault.matches(op, path):
                self.changed.wait()
                fault = self.fault
        if not fault.matches(op, path):
            return
        if fault.mode == 'eio':
            raise FuseOSError(errno.EIO)
        if fault.mode == 'errno':
            raise FuseOSError(getattr(errno, fault.arg or 'EIO'))
        if fault.mode == 'delay':
            time.sleep(int(fault.arg or '0') / 1000.0)


STAT_FIELDS = ('st_atime', 'st_ctime', 'st_mtime', 'st_gid', 'st_uid', 'st_mode', 'st_nlink', 'st_size',
               'st_blocks', 'st_ino')
STATVFS_FIELDS = ('f_bavail', 'f_bfree', 'f_blocks', 'f_bsize', 'f_favail', 'f_ffree', 'f_files', 'f_flag',
                  'f_frsize', 'f_namemax')


class FaultFS(Operations):
    def __init__(self, backing, switchboard):
        self.backing = os.path.realpath(backing)
        self.switchboard = switchboard

    def __call__(self, op, *args):
        self.switchboard.admit(op, args[0] if args else '')
        return super().__call__(op, *args)

    def real(self, path):
        return self.backing + path

    def getattr(self, path, fh=None):
        st = os.lstat(self.real(path))
        return {name: getattr(st, name) for name in STAT_FIELDS}

    def statfs(self, path):
        st = os.statvfs(self.real(path))
        return {name: getattr(st, name) for name in STATVFS_FIELDS}

    def access(self, path, amode):
        if not os.access(self.real(path), amode):
            raise FuseOSError(errno.EACCES)

    def readdir(self, path, fh):
        return ['.', '..', *os.listdir(self.real(path))]

    def open(self, path, flags):
        return os.open(self.real(path), flags)

    def create(self, path, mode, fi=None):
        # O_EXCL matters: exclusive create ('wx') is how the stores claim a name.
        return os.open(self.real(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        os.truncate(self.real(path), length)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        (os.fdatasync if datasync else os.fsync)(fh)

    def release(self, path, fh):
        os.close(fh)

    def mkdir(self, path, mode): os.mkdir(self.real(path), mode)
    def rmdir(self, path): os.rmdir(self.real(path))
    def unlink(self, path): os.unlink(self.real(path))
    def rename(self, old, new): os.rename(self.real(old), self.real(new))
    def link(self, target, source): os.link(self.real(source), self.real(target))
    def symlink(self, target, source): os.symlink(source, self.real(target))
    def readlink(self, path): return os.readlink(self.real(path))
    def chmod(self, path, mode): os.chmod(self.real(path), mode)
    def chown(self, path, uid, gid): os.chown(self.real(path), uid, gid)
    def utimens(self, path, times=None): os.utime(self.real(path), times)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit('usage: faultfs.py BACKING_DIR MOUNTPOINT CONTROL_FILE')
    backing_dir, mountpoint, control = sys.argv[1:]
    # Zero cache timeouts: every lookup and stat reaches the switchboard, as on NFS mounted with actimeo=0.
    FUSE(FaultFS(backing_dir, Switchboard(control)), mountpoint, foreground=True, nothreads=False,
         entry_timeout=0, attr_timeout=0, negative_timeout=0)
