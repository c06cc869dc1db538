package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"time"
)

// startRuntimeStats appends a line every $ENCBENCH_RUNTIME_STATS_INTERVAL
// (default 60s) to $ENCBENCH_RUNTIME_STATS: time, resident memory,
// goroutines and live heap, for the soak test (bench/soak.sh), which
// checks that long runs do not grow. It returns the function that stops it.
func startRuntimeStats() func() {
	path := os.Getenv("ENCBENCH_RUNTIME_STATS")
	if path == "" {
		return func() {}
	}
	every := time.Minute
	if d, err := time.ParseDuration(os.Getenv("ENCBENCH_RUNTIME_STATS_INTERVAL")); err == nil && d > 0 {
		every = d
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return func() {}
	}
	fmt.Fprintln(f, "unix_s rss_kib goroutines heap_live_kib")
	done := make(chan struct{})
	stopped := make(chan struct{})
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	write := func() {
		metrics.Read(sample)
		heap := uint64(0)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			heap = sample[0].Value.Uint64()
		}
		fmt.Fprintf(f, "%d %d %d %d\n", time.Now().Unix(), rssKiB(), runtime.NumGoroutine(), heap>>10)
	}
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		write()
		for {
			select {
			case <-done:
				write()
				return
			case <-t.C:
				write()
			}
		}
	}()
	return func() { close(done); <-stopped; f.Close() }
}

// rssKiB reads VmRSS from /proc/self/status.
func rssKiB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:")); ok {
			fields := bytes.Fields(rest)
			if len(fields) > 0 {
				n, _ := strconv.ParseInt(string(fields[0]), 10, 64)
				return n
			}
		}
	}
	return -1
}
