//go:build linux && !amd64 && !arm64 && !riscv64

package rules

// sysFstatat is 0 where lstat calls syscall.Lstat (see stat_linux.go).
const sysFstatat = 0
