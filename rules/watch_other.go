//go:build !linux

package rules

// Watcher would watch the directories a Set's path patterns depend on; outside Linux
// there is no inotify, and every dependency is checked as follow.go says. Its zero
// value is ready.
type Watcher struct{}

// Open does nothing outside Linux.
func (w *Watcher) Open() error { return nil }

// Close does nothing outside Linux.
func (w *Watcher) Close() error { return nil }

func (w *Watcher) trusted([]dep, []bool) {}

func (w *Watcher) prepare(*dep) (uint64, bool) { return 0, false }

func (w *Watcher) confirm(*dep, uint64, fileID) {}

func (w *Watcher) lookBegin(bool) (uint64, bool) { return 0, false }

func (w *Watcher) lookEnd(*lookSession) lookMark { return lookMark{} }

func (w *Watcher) lookStale(lookMark) bool { return false }

func (w *Watcher) lookLstat(_ *lookSession, name string) lstatEntry { return lstatInfo(name) }

func (w *Watcher) lookSymlinks(_ *lookSession, dir string) ([]string, error) {
	return readSymlinks(dir)
}

// lookAnswer is a kept answer of the lookup cache, which only Linux has.
type lookAnswer struct{}
