package gate

import (
	"time"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Store is what the gate needs from persistence; *store.DB implements it. Every method
// is one bbolt transaction, committed before it returns, and safe for concurrent use.
// Errors are the store's sentinels (store.ErrNotFound, store.ErrAlreadyResolved, …)
// wrapped with the operation, tested with errors.Is.
type Store interface {
	// Groups and Rules load everything for the in-memory snapshot.
	Groups() ([]rules.Group, error)
	Rules() ([]rules.Rule, error)

	CreateRule(r rules.Rule, by store.Actor) (rules.Rule, error)
	UpdateRule(r rules.Rule, by store.Actor) (rules.Rule, error)
	DeleteRule(id uint64, by store.Actor) error
	CreateGroup(g rules.Group, by store.Actor) error
	UpdateGroup(g rules.Group, by store.Actor) error
	DeleteGroup(id string, inUse []string, by store.Actor) error
	DuplicateGroup(src string, g rules.Group, by store.Actor) ([]rules.Rule, error)
	ApplyRules(c store.RuleChanges, by store.Actor) ([]rules.Rule, error)
	EnsureGroups(ids []string, by store.Actor) (created []string, err error)

	CreateRequest(r store.Request) (req store.Request, created bool, err error)
	Request(id uint64) (store.Request, error)
	RequestByToolCall(sessionID, toolCallID string) (store.Request, error)
	RequestsByToolCallID(toolCallID string) ([]store.Request, error)
	Pending() ([]store.Request, error)
	Resolve(id uint64, status store.Status, res store.Resolution) (store.Request, error)
	ExpireDue(now time.Time) ([]store.Request, error)
	CancelSession(sessionID string, res store.Resolution) ([]store.Request, error)
	AddMessage(id uint64, m store.Message) error
	MarkMessagesFinal(id uint64) error

	CreateClarification(c store.Clarification) (store.Clarification, bool, error)
	Clarification(id uint64) (store.Clarification, error)
	ClarificationByCallerID(sessionID, clarificationID string) (store.Clarification, error)
	PendingClarifications() ([]store.Clarification, error)
	AnswerClarification(id uint64, a store.ClarificationAnswer) (store.Clarification, error)
	CancelClarification(id uint64, res store.Resolution) (store.Clarification, error)
	CancelSessionClarifications(sessionID string,
		res store.Resolution) ([]store.Clarification, error)
	ExpireDueClarifications(now time.Time) ([]store.Clarification, error)
	BindReply(id uint64, p store.ReplyPrompt) error
	ClarificationByReply(channel, chatID, ref string) (store.Clarification,
		store.ReplyPrompt, error)

	AppendAudit(entries ...store.AuditEntry) error
	AddTools(names []string) error
	Tools() ([]string, error)
}

var _ Store = (*store.DB)(nil)
