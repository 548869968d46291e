package api

import (
	"testing"
	"time"
)

// SetBackupStall makes GET /api/backup give up on a client that takes nothing for d,
// until the end of the test.
func SetBackupStall(t testing.TB, d time.Duration) {
	old := backupStall.Swap(int64(d))
	t.Cleanup(func() { backupStall.Store(old) })
}
