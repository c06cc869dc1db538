package measure

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Disk describes the block device that holds path, for example
// "vda, 50 GiB, non-rotational"; empty when it cannot be told.
func Disk(path string) string {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return ""
	}
	sys := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	real, err := filepath.EvalSymlinks(sys)
	if err != nil {
		return fsType(path)
	}
	// A partition's parent directory is the whole disk.
	dev := real
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		dev = filepath.Dir(real)
	}
	name := filepath.Base(dev)
	parts := []string{name}
	if model := readTrim(filepath.Join(dev, "device", "model")); model != "" {
		parts = append(parts, model)
	}
	if n, err := strconv.ParseInt(readTrim(filepath.Join(dev, "size")), 10, 64); err == nil && n > 0 {
		parts = append(parts, fmt.Sprintf("%.0f GiB", float64(n)*512/(1<<30)))
	}
	switch readTrim(filepath.Join(dev, "queue", "rotational")) {
	case "0":
		parts = append(parts, "non-rotational")
	case "1":
		parts = append(parts, "rotational")
	}
	return strings.Join(parts, ", ")
}

func fsType(path string) string {
	var fs unix.Statfs_t
	if err := unix.Statfs(path, &fs); err != nil {
		return ""
	}
	switch fs.Type {
	case unix.OVERLAYFS_SUPER_MAGIC:
		return "overlay filesystem"
	case unix.TMPFS_MAGIC:
		return "tmpfs (memory)"
	}
	return fmt.Sprintf("filesystem type 0x%x", fs.Type)
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Kernel is the running kernel's release.
func Kernel() string { return readTrim("/proc/sys/kernel/osrelease") }
