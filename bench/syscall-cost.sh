#!/usr/bin/env bash
# Cost of one system call's entry and exit on this machine: a C loop of
# getppid(2) under taskset -c CPU (default 0), 2 million calls. Used in
# bench/README.md to size what one system call fewer per statement saves.
# usage: bench/syscall-cost.sh [CPU]
set -euo pipefail
command -v cc >/dev/null || { echo "syscall-cost: no C compiler (apt-get install gcc)" >&2; exit 2; }
work=$(mktemp -d /tmp/encbench-syscall.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/loop.c" <<'C'
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
int main(void) {
  const int n = 2000000;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < n; i++) syscall(SYS_getppid);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.1f ns per system call\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
  return 0;
}
C
cc -O2 -o "$work/loop" "$work/loop.c"
taskset -c "${1:-0}" "$work/loop"
