// Package fsx writes files the way encbench's keys, certificates and
// results need: atomically (a reader sees the old file or the new one,
// never a part), durably (file and directory fsync-ed), and with their
// final mode from the first byte.
package fsx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile writes data to path atomically with the given mode: a
// temporary file in the same directory, created with that mode, written,
// synced and renamed over path, then the directory synced.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, cause(err))
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	// CreateTemp makes the file 0600; set the final mode before any data.
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, cause(err))
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, cause(err))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, cause(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, cause(err))
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, cause(err))
	}
	ok = true
	return SyncDir(dir)
}

// SyncDir makes a rename or a new file in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// CheckPrivate refuses a secret file that others could read or replace:
// a symbolic link, group or world permissions on the file, an owner other
// than this user, or a parent directory others may write to (without the
// sticky bit).
func CheckPrivate(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	// A link's target could be swapped by whoever owns the link's
	// directory or the target's; a key is read from its own path only.
	if st.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: give the key file's own path", path)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is readable or writable by others (mode %04o): chmod 600 %s", path, st.Mode().Perm(), path)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to you (uid %d): use your own key file", path, sys.Uid, os.Getuid())
	}
	dir := filepath.Dir(path)
	dst, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if dst.Mode().Perm()&0o022 != 0 && dst.Mode()&os.ModeSticky == 0 {
		return fmt.Errorf("%s is in %s, which others may write to (mode %04o), so they could replace it: keep keys in a directory only you can write (chmod go-w %s)", path, dir, dst.Mode().Perm(), dir)
	}
	return nil
}

// WriteNew creates path, which must not exist yet, with its final mode,
// writes and syncs it, then syncs its directory.
func WriteNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// Lock takes an exclusive advisory lock on path (created 0600 if needed),
// waiting for another holder; the returned function releases it.
func Lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// NoRoom says whether err is the file system refusing to store more: no
// space, quota exceeded or mounted read-only. Waiting does not help; the
// user must make room (or remount) and resume.
func NoRoom(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EROFS)
}

// cause is the system's reason inside a path error: the path is already
// in the message, and a temporary file's name only distracts.
func cause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// CountIn counts needle in what r reads, through buf (at least twice the
// needle's length: a chunk plus the len(needle)-1 bytes carried between
// chunks, so no occurrence is split): the marker scans of raw server
// files and images, which must not hold gigabytes in memory.
func CountIn(r io.Reader, needle, buf []byte) (int, error) {
	count, keep := 0, 0
	for {
		n, err := io.ReadFull(r, buf[keep:])
		data := buf[:keep+n]
		count += bytes.Count(data, needle)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return count, nil
		}
		if err != nil {
			return count, err
		}
		keep = min(len(needle)-1, len(data))
		copy(buf, data[len(data)-keep:])
	}
}
