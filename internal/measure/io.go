package measure

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// IO is the tree's storage I/O so far in bytes, as /proc/PID/io's
// read_bytes and write_bytes count it: reads that went to the block layer
// (page cache misses, O_DIRECT), and writes as the kernel accounts them,
// when a page is dirtied (a page written and then truncated before it
// reached the disk is taken off). A buffered server's writes count a page
// again each time a write dirties it after a sync (a WAL page after every
// commit): 25 times what reached the disk in a PostgreSQL sysbench write
// run here, so writes are for comparing variants of one server, and the
// device's counters (BlockDevice) say what reached the disk. rchar and
// wchar are not used: they count sockets a server reads and writes with
// read(2) and write(2), as OpenSSL's socket BIO does under MariaDB's TLS.
// The root's own counts hold the children it has reaped, as its CPU does.
func (t *ProcTree) IO() (read, write int64, err error) {
	read, write, err = t.io()
	if err != nil {
		if t.pids, err = Tree(t.pids[0]); err != nil {
			return 0, 0, err
		}
		read, write, err = t.io()
	}
	return read, write, err
}

func (t *ProcTree) io() (read, write int64, err error) {
	for _, pid := range t.pids {
		p, err := t.fs.Proc(pid)
		if err != nil {
			return 0, 0, err
		}
		st, err := p.IO()
		if err != nil {
			return 0, 0, fmt.Errorf("reading process %d's I/O: %w", pid, err)
		}
		read += int64(st.ReadBytes)
		write += int64(st.WriteBytes) - int64(st.CancelledWriteBytes)
	}
	return read, write, nil
}

// BlockDevice is the block device that holds a process's working directory (a
// database server's data directory), whose busy time it reads.
type BlockDevice struct {
	// Name is the device, for example "vda".
	Name string
	stat string
}

// DiskOf finds the device under pid's working directory.
func DiskOf(pid int) (*BlockDevice, error) {
	dir, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		return nil, fmt.Errorf("finding the server's data directory: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return nil, fmt.Errorf("finding the disk of %s: %w", dir, err)
	}
	dev, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev)))
	if err != nil {
		return nil, fmt.Errorf("%s is on no block device (%w)", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dev, "partition")); err == nil {
		dev = filepath.Dir(dev)
	}
	d := &BlockDevice{Name: filepath.Base(dev), stat: filepath.Join(dev, "stat")}
	if _, err := d.Sample(); err != nil {
		return nil, err
	}
	return d, nil
}

// DiskSample is a block device's counts so far: bytes read and written,
// and the time it had I/O in flight (io_ticks): over a window, that
// time's share of the window is how busy the disk was.
type DiskSample struct {
	Read, Written int64
	Busy          time.Duration
}

// Sample reads the device's stat file (Documentation/block/stat.rst:
// sectors of 512 bytes read in field 3 and written in field 7, io_ticks in
// milliseconds in field 10). It counts everything on the device, not
// only the server's.
func (d *BlockDevice) Sample() (DiskSample, error) {
	b, err := os.ReadFile(d.stat)
	if err != nil {
		return DiskSample{}, fmt.Errorf("reading %s: %w", d.stat, err)
	}
	f := strings.Fields(string(b))
	if len(f) < 10 {
		return DiskSample{}, fmt.Errorf("%s has %d fields, not the 10 or more of a block device's stat", d.stat, len(f))
	}
	var v [3]int64
	for i, field := range []int{2, 6, 9} {
		if v[i], err = strconv.ParseInt(f[field], 10, 64); err != nil {
			return DiskSample{}, fmt.Errorf("reading field %d of %s: %w", field+1, d.stat, err)
		}
	}
	return DiskSample{Read: 512 * v[0], Written: 512 * v[1], Busy: time.Duration(v[2]) * time.Millisecond}, nil
}
