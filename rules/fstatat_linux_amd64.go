package rules

import "syscall"

// sysFstatat is the number of the fstatat system call that fills a syscall.Stat_t.
const sysFstatat = syscall.SYS_NEWFSTATAT
