package gate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Call is a tool call as an agent submits it. Arguments is a decoded JSON
// object. Group or Profile pick the permission group.
type Call struct {
	ToolName     string         `json:"tool_name"`
	Arguments    map[string]any `json:"arguments"`
	SessionID    string         `json:"session_id"`
	ToolCallID   string         `json:"tool_call_id,omitempty"`
	AgentID      string         `json:"agent_id,omitempty"`
	Source       string         `json:"source,omitempty"`
	Category     string         `json:"category,omitempty"`
	ContextLabel string         `json:"context_label,omitempty"`
	Group        string         `json:"group,omitempty"`
	Profile      string         `json:"profile,omitempty"`
	Cwd          string         `json:"cwd,omitempty"`
	// ApprovalTimeout overrides Options.ApprovalTimeout for the request this call may
	// register (a job's approval_timeout); zero means the Manager's.
	ApprovalTimeout time.Duration `json:"-"`
	// Caller is who made the call (store.Request.Caller); set by the API or the
	// scheduler, never by the agent. "" means store.CallerAdmin.
	Caller string `json:"-"`
}

// Category maps tool patterns to a category name; the first entry whose
// patterns match a tool gives its category.
type Category struct {
	Name  string   `json:"name" yaml:"name"`
	Tools []string `json:"tools" yaml:"tools"`
}

// DefaultCategories is the default of the configuration's tools.categories.
var DefaultCategories = []Category{
	{Name: "shell", Tools: []string{"execute_cmd", "Bash"}},
	{Name: "filesystem", Tools: []string{"@fs_any"}},
}

// Verdict is what Check answers: allow and deny at once, pending while a human
// decides, then the request's final status (docs/design.md, "Approval requests").
type Verdict string

// The verdicts; their strings are the API's "decision" values.
const (
	VerdictAllow     Verdict = "allow"
	VerdictDeny      Verdict = "deny"
	VerdictPending   Verdict = "pending"
	VerdictApproved  Verdict = "approved"
	VerdictRejected  Verdict = "rejected"
	VerdictExpired   Verdict = "expired"
	VerdictCancelled Verdict = "cancelled"
)

// Outcome is the answer to a Check.
type Outcome struct {
	Decision Verdict `json:"decision"`
	// RuleID is the rule that decided (0 for none: default require, bypass, profile
	// fast-path, protected path, or a path holding a protected or denied place over a
	// rule's allow).
	RuleID uint64 `json:"rule_id,omitempty"`
	Reason string `json:"reason"`
	Note   string `json:"note,omitempty"`
	// Commands are, for a shell tool's call, how each command of its script was
	// decided (rules.Decision.Script); nil for other tools.
	Commands []store.CommandDecision `json:"commands,omitempty"`
	// Request is set when the call required approval: the registered (or existing)
	// request as stored.
	Request *store.Request `json:"-"`
}

// Notifier is what a chat layer implements to show requests. The gate
// calls it from its own goroutines, after the request is committed, never while
// holding a lock; implementations must be safe for concurrent use and return when
// ctx is done. Errors are logged by the gate; retrying is the notifier's job.
type Notifier interface {
	// Show presents a new pending request on every chat it serves.
	Show(ctx context.Context, r store.Request) error
	// Update edits every message of a request that left pending to show its outcome,
	// removing the buttons.
	Update(ctx context.Context, r store.Request) error
}

// Options configure a Manager.
type Options struct {
	// Store persists groups, rules, requests, the audit log and the tool catalog;
	// required (a *store.DB).
	Store Store
	// Rules configures tool classes, path arguments, the workspace root (absolute and
	// resolved through symlinks; required) and the protected paths (data_dir, config
	// file).
	Rules rules.Options
	// Profiles from the configuration; a "default" profile (group default, working
	// directory the workspace root) is added when absent.
	Profiles []rules.Profile
	// Categories nil means DefaultCategories.
	Categories []Category
	// ApprovalTimeout is how long a request stays pending; zero means
	// DefaultApprovalTimeout (24h).
	ApprovalTimeout time.Duration
	// Notifier may be nil (no chat channel).
	Notifier Notifier
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger nil means slog.Default(); the gate adds component=gate.
	Logger *slog.Logger
	// Limits cap the pending requests; zero fields mean the defaults.
	Limits Limits
}

// Limits cap how many requests may wait for a human at once (docs/design.md,
// "Limits"), so that one caller cannot fill the store. Zero means the default.
type Limits struct {
	// PendingPerCaller is the most pending requests of one caller; default 1,000.
	PendingPerCaller int
	// PendingTotal is the most pending requests of all callers; default 10,000.
	PendingTotal int
}

// Default limits (Limits).
const (
	DefaultPendingPerCaller = 1000
	DefaultPendingTotal     = 10000
)

// DefaultApprovalTimeout is how long a request stays pending when
// Options.ApprovalTimeout is zero.
const DefaultApprovalTimeout = 24 * time.Hour

// sweepInterval is the expiry sweeper's tick: a request pending past its expires_at is
// expired within this much (the API promises 2 s).
const sweepInterval = time.Second

// configActor is who creates the groups the configuration names.
var configActor = store.Actor{By: "system", Via: "config"}

// Manager is the approval gate: it checks tool calls against an in-memory
// snapshot of the rules, registers the calls that require approval, lets callers wait
// for them, resolves them exactly once, expires them, and keeps session bypasses, the
// event bus and the catalog of tool names seen. Create it with New and start its
// background work with Run. All methods are safe for concurrent use.
type Manager struct {
	store      Store
	ropt       rules.Options
	profiles   map[string]*profile
	defProfile *profile
	projects   []*profile // the profiles with a workspace of their own, deepest first
	roots      []string   // the workspace roots: ropt's, then each project's
	inUse      []string   // groups a profile uses: never deleted
	categories []Category
	timeout    time.Duration
	now        func() time.Time
	log        *slog.Logger

	// snap is the rule snapshot every Check reads; it is replaced whole, never
	// modified.
	snap atomic.Pointer[snapshot]
	// rulesMu serialises rule and group changes with the rebuild that follows each,
	// so an older rebuild never replaces a newer snapshot.
	rulesMu sync.Mutex

	// bypassMu guards bypasses: session id → that session's bypasses, each bound to
	// its caller or to every caller (docs/design.md, "Bypasses").
	bypassMu sync.Mutex
	bypasses map[string][]Bypass

	// waiters are the callers of Wait, clarWaiters those of WaitClarification.
	waiters, clarWaiters waiters

	pending pendingCount
	catalog catalog
	batch   batcher
	bus     bus
	notes   notifier
	// sweepNow asks the sweeper for an early pass (capacity 1).
	sweepNow chan struct{}
	running  atomic.Bool
	// watch watches the directories the path patterns depend on while Run runs
	// (rules.Options.Watcher); closed, checks lstat them.
	watch rules.Watcher
}

// New builds a Manager over opt.Store: it adds the "default" profile when the
// configuration has none, creates (audited) the groups profiles name, and loads groups
// and rules into the first snapshot; a failed load leaves the gate fail-closed until a
// later one succeeds. Errors: a nil store, a relative workspace root, a negative timeout
// or limit, a duplicate or unusable profile, an invalid category pattern (wrapping
// ErrInvalidRule), or the store's error. New starts no goroutines; Run does.
func New(opt Options) (*Manager, error) {
	if opt.Store == nil {
		return nil, errors.New("gate: new: no store")
	}
	if !filepath.IsAbs(opt.Rules.WorkspaceRoot) {
		return nil, fmt.Errorf("gate: new: workspace root %q is not an absolute path",
			opt.Rules.WorkspaceRoot)
	}
	if opt.ApprovalTimeout < 0 {
		return nil, fmt.Errorf("gate: new: approval timeout %s is negative", opt.ApprovalTimeout)
	}
	if opt.Limits.PendingPerCaller < 0 || opt.Limits.PendingTotal < 0 {
		return nil, fmt.Errorf("gate: new: pending limits %d per caller, %d in total: negative",
			opt.Limits.PendingPerCaller, opt.Limits.PendingTotal)
	}
	m := &Manager{
		store:      opt.Store,
		ropt:       opt.Rules,
		categories: opt.Categories,
		timeout:    opt.ApprovalTimeout,
		now:        opt.Now,
		log:        opt.Logger,
		bypasses:   make(map[string][]Bypass),
		sweepNow:   make(chan struct{}, 1),
	}
	m.ropt.Watcher = &m.watch
	if m.timeout == 0 {
		m.timeout = DefaultApprovalTimeout
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	m.log = m.log.With("component", "gate")
	if m.categories == nil {
		m.categories = DefaultCategories
	}
	if err := validateCategories(m.categories); err != nil {
		return nil, fmt.Errorf("gate: new: %w", err)
	}
	if err := m.loadProfiles(opt.Profiles); err != nil {
		return nil, fmt.Errorf("gate: new: %w", err)
	}
	created, err := m.store.EnsureGroups(m.inUse, configActor)
	if err != nil {
		return nil, fmt.Errorf("gate: new: create the groups profiles use: %w", err)
	}
	for _, g := range created {
		m.log.Info("created the permission group a profile names", "group", g)
	}
	if err := m.pending.init(m.store, opt.Limits); err != nil {
		return nil, fmt.Errorf("gate: new: %w", err)
	}
	m.batch.init()
	m.notes.init(opt.Notifier, m.log)
	m.catalog.init(m.store, m.log)
	m.snap.Store(m.load())
	return m, nil
}

// Run runs the gate's background work until ctx is done: the expiry sweeper, the batcher
// of deny audit entries and new tool names (flushed once more on the way out), and the
// goroutines that call the Notifier. It blocks, and returns nil only when all of them
// have stopped. While it runs, an inotify descriptor watches the directories the path
// patterns depend on (docs/design.md, "Tool patterns and file classes"); without
// inotify, checks lstat them. Notifications asked for before Run starts wait for it;
// after it returns
// they are dropped (the chat layer's outbox shows them at the next start). Calling Run
// twice returns ErrRunning.
func (m *Manager) Run(ctx context.Context) error {
	if !m.running.CompareAndSwap(false, true) {
		return fmt.Errorf("gate: run: %w", ErrRunning)
	}
	if err := m.watch.Open(); err != nil {
		m.log.Warn("path pattern directories are checked by lstat", "err", err)
	}
	defer func() {
		if err := m.watch.Close(); err != nil {
			m.log.Warn("close the directory watcher", "err", err)
		}
	}()
	var wg sync.WaitGroup
	m.notes.start(ctx)
	wg.Go(func() { m.sweepLoop(ctx) })
	wg.Go(func() { m.batchLoop(ctx) })
	<-ctx.Done()
	wg.Wait()
	m.notes.stop()
	return nil
}

// sweepLoop expires due requests every sweepInterval, or at once when asked, and retries
// loading the rules while the gate runs fail-closed.
func (m *Manager) sweepLoop(ctx context.Context) {
	t := time.NewTicker(sweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-m.sweepNow:
		}
		m.expireDue()
		m.expireDueClarifications()
		if m.snap.Load().err != nil {
			m.rulesMu.Lock()
			if m.snap.Load().err != nil {
				m.snap.Store(m.load())
			}
			m.rulesMu.Unlock()
		}
	}
}

// expireDue marks expired every pending request past its expires_at.
func (m *Manager) expireDue() {
	reqs, err := m.store.ExpireDue(m.now())
	if err != nil {
		m.log.Error("expiring due requests", "err", err)
		return
	}
	for _, r := range reqs {
		m.log.Info("request expired", "request_id", r.ID, "session_id", r.SessionID,
			"tool", r.ToolName)
		m.finished(r)
	}
}

// askSweep asks the sweeper for an early pass without blocking.
func (m *Manager) askSweep() {
	select {
	case m.sweepNow <- struct{}{}:
	default:
	}
}
