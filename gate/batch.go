package gate

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/skald-circle/skald-bot/store"
)

// batcher collects the writes a check may cause — audit entries of denies and new tool
// names for the catalog — for Run's batch loop, so a check never waits for the disk.
// Each wake-up writes everything collected so far in at most two
// transactions; under load, entries arriving during a write go in the next one.
type batcher struct {
	mu      sync.Mutex // guards entries and tools
	entries []store.AuditEntry
	tools   []string
	wake    chan struct{} // capacity 1: something was added
}

func (b *batcher) init() { b.wake = make(chan struct{}, 1) }

func (b *batcher) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// audit queues an audit entry.
func (b *batcher) audit(e store.AuditEntry) {
	b.mu.Lock()
	b.entries = append(b.entries, e)
	b.mu.Unlock()
	b.signal()
}

// tool queues a new tool name.
func (b *batcher) tool(name string) {
	b.mu.Lock()
	b.tools = append(b.tools, name)
	b.mu.Unlock()
	b.signal()
}

// take returns and forgets what was queued.
func (b *batcher) take() ([]store.AuditEntry, []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, t := b.entries, b.tools
	b.entries, b.tools = nil, nil
	return a, t
}

// batchLoop writes what checks queued, as soon as it is queued, and once more when ctx
// is done so nothing queued before shutdown is lost.
func (m *Manager) batchLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			m.flush()
			return
		case <-m.batch.wake:
			m.flush()
		}
	}
}

// flush writes the queued tool names and audit entries. A failed write is logged and
// dropped: these are records, not decisions.
func (m *Manager) flush() {
	entries, tools := m.batch.take()
	if len(tools) > 0 {
		if err := m.store.AddTools(tools); err != nil {
			m.log.Error("adding tools to the catalog", "tools", len(tools), "err", err)
		}
	}
	if len(entries) > 0 {
		if err := m.store.AppendAudit(entries...); err != nil {
			m.log.Error("writing deny audit entries", "entries", len(entries), "err", err)
		}
	}
}

// catalog is the set of tool names seen (GET /api/approval/tools), at most
// store.MaxTools of them. A name already seen costs a lock-free lookup that does not
// allocate; a new one is queued for the store once.
type catalog struct {
	seen sync.Map // tool name → struct{}
	// n counts the names in seen; full is set, and logged once, when n reaches
	// store.MaxTools.
	n    atomic.Int64
	full atomic.Bool
	log  *slog.Logger
}

// init loads the names the store already knows, so they are not written again.
func (c *catalog) init(s Store, log *slog.Logger) {
	c.log = log
	names, err := s.Tools()
	if err != nil {
		log.Error("loading the tool catalog", "err", err)
		return
	}
	for _, n := range names {
		c.seen.Store(n, struct{}{})
	}
	c.n.Store(int64(len(names)))
}

// see records tool, queueing it on b when it is new. A name longer than the store
// accepts (store.MaxToolNameLen) is not recorded: it would fail the whole batch; nor
// is a new name once the catalog is full.
func (c *catalog) see(tool string, b *batcher) {
	if _, ok := c.seen.Load(tool); ok || len(tool) > store.MaxToolNameLen {
		return
	}
	if c.n.Add(1) > store.MaxTools {
		c.n.Add(-1)
		if c.full.CompareAndSwap(false, true) {
			c.log.Warn("the tool catalog is full: new tool names are no longer recorded",
				"max", store.MaxTools)
		}
		return
	}
	if _, loaded := c.seen.LoadOrStore(tool, struct{}{}); !loaded {
		b.tool(tool)
	} else {
		c.n.Add(-1)
	}
}

// Catalog is every tool name seen so far, grouped (GET /api/approval/tools):
// MCP tools are those named mcp__<server>__<tool>; MCPServers lists their servers.
// Each list is sorted.
type Catalog struct {
	BuiltIn    []string `json:"built_in"`
	MCP        []string `json:"mcp"`
	MCPServers []string `json:"mcp_servers"`
}

// Tools returns the catalog of tool names seen: those in the store and those seen
// since but not yet written by the batcher. Errors: the store's.
func (m *Manager) Tools() (Catalog, error) {
	names, err := m.store.Tools()
	if err != nil {
		return Catalog{}, fmt.Errorf("gate: tools: %w", err)
	}
	m.catalog.seen.Range(func(k, _ any) bool {
		names = append(names, k.(string))
		return true
	})
	slices.Sort(names)
	names = slices.Compact(names)
	c := Catalog{BuiltIn: []string{}, MCP: []string{}, MCPServers: []string{}}
	for _, n := range names {
		if s := MCPServer(n); s != "" {
			c.MCP = append(c.MCP, n)
			c.MCPServers = append(c.MCPServers, s)
			continue
		}
		c.BuiltIn = append(c.BuiltIn, n)
	}
	slices.Sort(c.MCPServers)
	c.MCPServers = slices.Compact(c.MCPServers)
	return c, nil
}
