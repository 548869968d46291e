package testkit

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// Logs is a slog.Handler that keeps every record as "LEVEL message k=v …", for a test
// to read or wait for. The zero Logs is ready; safe for concurrent use.
type Logs struct {
	root  *logsRoot
	attrs []slog.Attr
	once  sync.Once
}

type logsRoot struct {
	mu      sync.Mutex
	records []string
	changed chan struct{} // closed and replaced at each record
}

func (l *Logs) r() *logsRoot {
	l.once.Do(func() {
		if l.root == nil {
			l.root = &logsRoot{changed: make(chan struct{})}
		}
	})
	return l.root
}

// Logger returns a logger writing to l.
func (l *Logs) Logger() *slog.Logger { return slog.New(l) }

// Enabled reports true for every level.
func (l *Logs) Enabled(context.Context, slog.Level) bool { return true }

// Handle keeps r.
func (l *Logs) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	for _, a := range l.attrs {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	root := l.r()
	root.mu.Lock()
	defer root.mu.Unlock()
	root.records = append(root.records, b.String())
	close(root.changed)
	root.changed = make(chan struct{})
	return nil
}

// WithAttrs returns a handler adding as to every record, writing to the same Logs.
func (l *Logs) WithAttrs(as []slog.Attr) slog.Handler {
	return &Logs{root: l.r(), attrs: append(slices.Clone(l.attrs), as...)}
}

// WithGroup returns l: groups are not shown.
func (l *Logs) WithGroup(string) slog.Handler { return l }

// Find returns the records holding every one of parts.
func (l *Logs) Find(parts ...string) []string {
	root := l.r()
	root.mu.Lock()
	defer root.mu.Unlock()
	return findAll(root.records, parts)
}

func findAll(records, parts []string) []string {
	var out []string
	for _, r := range records {
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(r, p) }) {
			out = append(out, r)
		}
	}
	return out
}

// All returns every record, one a line.
func (l *Logs) All() string {
	root := l.r()
	root.mu.Lock()
	defer root.mu.Unlock()
	return strings.Join(root.records, "\n")
}

// Wait blocks until a record holds every part of one of the lists and returns the
// first such record; the error is ctx's when it ends first.
func (l *Logs) Wait(ctx context.Context, lists ...[]string) (string, error) {
	root := l.r()
	for {
		root.mu.Lock()
		ch := root.changed
		for _, parts := range lists {
			if got := findAll(root.records, parts); len(got) > 0 {
				root.mu.Unlock()
				return got[0], nil
			}
		}
		root.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return "", fmt.Errorf("testkit: waiting for a log record %q: %w", lists, ctx.Err())
		}
	}
}
