package store

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// ClarificationStatus is the state of a clarification (docs/design.md,
// "Clarifications"). Pending is the only state one leaves; the others are final.
type ClarificationStatus string

// Clarification statuses.
const (
	ClarificationPending   ClarificationStatus = "pending"
	ClarificationAnswered  ClarificationStatus = "answered"
	ClarificationExpired   ClarificationStatus = "expired"
	ClarificationCancelled ClarificationStatus = "cancelled"
)

// Input limits of CreateClarification.
const (
	// MaxQuestionLen is the longest question accepted, in bytes.
	MaxQuestionLen = 64 << 10
	// MaxOptions is the most options a clarification may offer.
	MaxOptions = 10
	// MaxOptionLen is the longest option, in characters.
	MaxOptionLen = 64
	// MaxAnswerLen is the longest answer text accepted, in bytes.
	MaxAnswerLen = 16 << 10
)

// Audit actions of clarifications.
const (
	AuditClarificationAnswered  = "clarification.answered"
	AuditClarificationExpired   = "clarification.expired"
	AuditClarificationCancelled = "clarification.cancelled"
)

// Clarification is a question an agent asks a human (docs/design.md, "Clarifications")
// as it is stored, persisted before anyone is told of it. Its JSON tags are the on-disk
// format only: the API has its own types.
type Clarification struct {
	ID uint64 `json:"id"`
	// ClarificationID is the caller's own id; with SessionID it makes creation
	// idempotent. "" means every creation is a new clarification.
	ClarificationID string `json:"clarification_id,omitempty"`
	SessionID       string `json:"session_id"`
	AgentID         string `json:"agent_id,omitempty"`
	Source          string `json:"source,omitempty"`
	ContextLabel    string `json:"context_label,omitempty"`
	// Caller is who asked (Request.Caller); only that caller may read or cancel it.
	Caller    string              `json:"caller"`
	Question  string              `json:"question"`
	Options   []string            `json:"options,omitempty"`
	CreatedAt time.Time           `json:"created_at"`
	ExpiresAt time.Time           `json:"expires_at"`
	Status    ClarificationStatus `json:"status"`
	// Answer is set when Status is ClarificationAnswered.
	Answer *ClarificationAnswer `json:"answer,omitempty"`
	// Closed says who ended it and when for ClarificationExpired and
	// ClarificationCancelled (Note holds the reason); nil otherwise.
	Closed *Resolution `json:"closed,omitempty"`
	// Messages are the chat messages that show the question (the outbox).
	Messages []Message `json:"messages,omitempty"`
	// Replies are the chat messages an approver answers by replying to (a Telegram
	// force_reply prompt), each bound to that approver.
	Replies []ReplyPrompt `json:"replies,omitempty"`
}

// ClarificationAnswer is a human's answer. Option is the index of the option chosen,
// nil for free text; Text is then that option.
type ClarificationAnswer struct {
	Text   string    `json:"text"`
	Option *int      `json:"option,omitempty"`
	By     string    `json:"by"`
	Via    string    `json:"via"`
	At     time.Time `json:"at"`
}

// ReplyPrompt is a chat message whose reply answers a clarification: only UserID's
// reply counts.
type ReplyPrompt struct {
	Channel string `json:"channel"`
	ChatID  string `json:"chat_id"`
	Ref     string `json:"ref"`
	UserID  string `json:"user_id"`
}

// Outcome says how a finished clarification ended: "answered by alice via telegram".
func (c Clarification) Outcome() string {
	s := string(c.Status)
	switch {
	case c.Answer != nil:
		s += " by " + c.Answer.By + " via " + c.Answer.Via
	case c.Closed != nil:
		s += " by " + c.Closed.By + " via " + c.Closed.Via
	}
	return s
}

// CreateClarification stores c as a new pending clarification and returns it as stored
// (the next id, CreatedAt now when zero) with created=true, committed when it returns. A
// (SessionID, ClarificationID) already stored writes nothing: the same question by the
// same caller gets the existing one, created=false; a different one an error wrapping
// ErrToolCallReused naming the first differing field — unless it is another caller's,
// which learns nothing. Other errors wrap ErrInvalid and write nothing: a question empty
// or over MaxQuestionLen, over MaxOptions options, an option empty, repeated, over
// MaxOptionLen or holding control, invisible, bidi or edge white-space characters, ids
// over MaxIDLen, text not UTF-8, ExpiresAt zero or not after CreatedAt.
func (d *DB) CreateClarification(c Clarification) (out Clarification, created bool, err error) {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = d.now()
	}
	if err := checkNewClarification(&c); err != nil {
		return Clarification{}, false, fmt.Errorf("store: create clarification: %w", err)
	}
	var reused string
	err = d.update(func(tx *bolt.Tx) error {
		out, created, reused = Clarification{}, false, ""
		if c.ClarificationID != "" {
			v := tx.Bucket(bucketClarByCID).Get(strKey(c.ClarificationID, c.SessionID))
			if v != nil {
				old, ok, err := getClarification(tx, readU64(v))
				if err != nil || ok {
					out, reused = old, clarificationDiffers(old, c)
					if err == nil {
						err = errNoChange
					}
					return err
				}
			}
		}
		n := c
		var key []byte
		if n.ClarificationID != "" {
			key = strKey(n.ClarificationID, n.SessionID)
		}
		if err := clarBuckets.insert(tx, &n.ID, &n, key, n.ExpiresAt); err != nil {
			return err
		}
		out, created = n, true
		return nil
	})
	switch {
	case err != nil:
		return Clarification{}, false, fmt.Errorf("store: create clarification: %w", err)
	case reused != "":
		key := fmt.Sprintf("clarification_id %q of session %q", c.ClarificationID, c.SessionID)
		if reused == "caller" {
			out = Clarification{}
		}
		return out, false, reuseError("create clarification", key, "clarification", out.ID,
			reused)
	}
	return out, created, nil
}

// clarificationDiffers names the first field in which new differs from old, "" for
// none; the caller comes first.
func clarificationDiffers(old, new Clarification) string {
	switch {
	case old.Caller != new.Caller:
		return "caller"
	case old.Question != new.Question:
		return "question"
	case !slices.Equal(old.Options, new.Options):
		return "options"
	}
	for _, f := range [...]struct{ name, a, b string }{
		{"agent_id", old.AgentID, new.AgentID},
		{"source", old.Source, new.Source},
		{"context_label", old.ContextLabel, new.ContextLabel},
	} {
		if f.a != f.b {
			return f.name
		}
	}
	return ""
}

// checkLabel refuses a context label that holds a control character (a newline, a
// tab, …): prompts show it on one line.
func checkLabel(l string) error {
	if strings.ContainsFunc(l, unicode.IsControl) {
		return fmt.Errorf("%w: context_label %q must not hold control characters "+
			"(newline, tab, NUL, …)", ErrInvalid, l)
	}
	return nil
}

// invisible reports whether r is a format or separator character a button does not
// show: bidi controls, zero-width characters, line and paragraph separators.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// checkNewClarification validates c and brings it to the form it is stored in.
func checkNewClarification(c *Clarification) error {
	q := strings.TrimSpace(c.Question)
	switch {
	case q == "":
		return fmt.Errorf("%w: question is required", ErrInvalid)
	case len(c.Question) > MaxQuestionLen:
		return fmt.Errorf("%w: question is longer than %d bytes", ErrInvalid, MaxQuestionLen)
	case len(c.SessionID) > MaxIDLen:
		return fmt.Errorf("%w: session_id is longer than %d bytes", ErrInvalid, MaxIDLen)
	case len(c.ClarificationID) > MaxIDLen:
		return fmt.Errorf("%w: clarification_id is longer than %d bytes", ErrInvalid, MaxIDLen)
	case len(c.Options) > MaxOptions:
		return fmt.Errorf("%w: %d options, at most %d", ErrInvalid, len(c.Options), MaxOptions)
	case c.ExpiresAt.IsZero():
		return fmt.Errorf("%w: expires_at is required", ErrInvalid)
	case !c.ExpiresAt.After(c.CreatedAt):
		return fmt.Errorf("%w: expires_at %s is not after created_at %s", ErrInvalid,
			c.ExpiresAt.Format(time.RFC3339), c.CreatedAt.Format(time.RFC3339))
	}
	for _, f := range [...]struct{ name, v string }{
		{"question", c.Question}, {"session_id", c.SessionID}, {"agent_id", c.AgentID},
		{"source", c.Source}, {"context_label", c.ContextLabel},
	} {
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalid, f.name)
		}
	}
	if err := checkLabel(c.ContextLabel); err != nil {
		return err
	}
	for i, o := range c.Options {
		switch {
		case strings.TrimSpace(o) == "":
			return fmt.Errorf("%w: option %d is empty", ErrInvalid, i+1)
		case !utf8.ValidString(o):
			return fmt.Errorf("%w: option %d is not valid UTF-8", ErrInvalid, i+1)
		case strings.ContainsFunc(o, unicode.IsControl): // a button shows one line
			return fmt.Errorf("%w: option %d %q must not hold control characters "+
				"(newline, tab, NUL, …)", ErrInvalid, i+1, o)
		case strings.ContainsFunc(o, invisible): // the answer is the text, not its look
			return fmt.Errorf("%w: option %d %q must not hold invisible or bidi "+
				"characters (U+200B, U+202E, …)", ErrInvalid, i+1, o)
		case strings.TrimSpace(o) != o: // "yes" beside "yes "
			return fmt.Errorf("%w: option %d %q must not start or end with white space",
				ErrInvalid, i+1, o)
		case utf8.RuneCountInString(o) > MaxOptionLen:
			return fmt.Errorf("%w: option %d is longer than %d characters", ErrInvalid, i+1,
				MaxOptionLen)
		case slices.Contains(c.Options[:i], o):
			return fmt.Errorf("%w: option %d repeats %q", ErrInvalid, i+1, o)
		}
	}
	if len(c.Options) == 0 {
		c.Options = nil
	}
	c.ID, c.Status, c.Answer, c.Closed = 0, ClarificationPending, nil, nil
	c.Messages, c.Replies = nil, nil
	if c.Caller == "" {
		c.Caller = CallerAdmin
	}
	return nil
}

func getClarification(tx *bolt.Tx, id uint64) (Clarification, bool, error) {
	return getAs[Clarification](tx.Bucket(bucketClars), u64(id))
}

// Clarification returns clarification id, or ErrNotFound.
func (d *DB) Clarification(id uint64) (Clarification, error) {
	c, err := viewOne(d, func(tx *bolt.Tx) (Clarification, bool, error) {
		return getClarification(tx, id)
	})
	if err != nil {
		return Clarification{}, fmt.Errorf("store: clarification %d: %w", id, err)
	}
	return c, nil
}

// PendingClarifications returns every pending clarification, oldest first.
func (d *DB) PendingClarifications() ([]Clarification, error) {
	var out []Clarification
	err := d.view(func(tx *bolt.Tx) error {
		var err error
		out, err = pendingClarsWhere(tx, func(Clarification) bool { return true })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: pending clarifications: %w", err)
	}
	return out, nil
}

// pendingClarsWhere returns the pending clarifications that keep accepts, by id.
func pendingClarsWhere(tx *bolt.Tx, keep func(Clarification) bool) ([]Clarification, error) {
	return pendingIn(tx, bucketClarPending, getClarification,
		func(c Clarification) uint64 { return c.ID }, keep)
}

// AnswerClarification records a (a zero a.At means now) as the answer of pending
// clarification id in one compare-and-set transaction with its audit entry
// "clarification.answered" by a.By via a.Via, and returns it as stored. Errors, each
// changing nothing: ErrAlreadyResolved (with the stored clarification; the message says
// who answered); ErrExpired when a.At is after ExpiresAt (with it too); ErrNotFound;
// ErrInvalid for a text empty, over MaxAnswerLen or not UTF-8, no By, or an Option that
// is not one of its options or whose option is not Text. Safe for concurrent use: of
// concurrent answers exactly one wins.
func (d *DB) AnswerClarification(id uint64, a ClarificationAnswer) (Clarification, error) {
	if a.At.IsZero() {
		a.At = d.now()
	}
	switch {
	case strings.TrimSpace(a.Text) == "":
		return Clarification{}, fmt.Errorf(
			"store: answer clarification %d: %w: the answer is empty", id, ErrInvalid)
	case len(a.Text) > MaxAnswerLen:
		return Clarification{}, fmt.Errorf(
			"store: answer clarification %d: %w: the answer is longer than %d bytes",
			id, ErrInvalid, MaxAnswerLen)
	case !utf8.ValidString(a.Text):
		return Clarification{}, fmt.Errorf(
			"store: answer clarification %d: %w: the answer is not valid UTF-8", id, ErrInvalid)
	case a.By == "":
		return Clarification{}, fmt.Errorf(
			"store: answer clarification %d: %w: the answer needs who (by)", id, ErrInvalid)
	}
	return d.endClarification(id, "answer", func(tx *bolt.Tx, c *Clarification) (
		resolveOutcome, error) {
		if a.At.After(c.ExpiresAt) {
			return resolveLate, nil
		}
		if o := a.Option; o != nil && (*o < 0 || *o >= len(c.Options) || c.Options[*o] != a.Text) {
			return resolveDone, fmt.Errorf("%w: option %d is not one of the %d options",
				ErrInvalid, *o+1, len(c.Options))
		}
		if err := tx.Bucket(bucketClarPending).Delete(timeIDKey(c.ExpiresAt, c.ID)); err != nil {
			return resolveDone, err
		}
		c.Status, c.Answer = ClarificationAnswered, &a
		if err := putClarification(tx, *c); err != nil {
			return resolveDone, err
		}
		detail := "session=" + c.SessionID + " answer=" + strconv.Quote(cut(a.Text, 200))
		return resolveDone, d.appendAudit(tx, AuditEntry{By: a.By, Via: a.Via,
			Action: AuditClarificationAnswered, ClarificationID: c.ID, Detail: detail})
	})
}

// endClarification ends pending clarification id in one transaction: end writes it and
// its audit entry and reports resolveDone, or refuses with resolveLate or an error
// (nothing written). Every error says "store: <op> clarification <id>"; with
// ErrAlreadyResolved and ErrExpired the stored clarification is returned too.
func (d *DB) endClarification(id uint64, op string,
	end func(tx *bolt.Tx, c *Clarification) (resolveOutcome, error)) (Clarification, error) {
	var out Clarification
	var outcome resolveOutcome
	err := d.update(func(tx *bolt.Tx) error {
		c, found, err := pendingClarification(tx, id)
		out, outcome = c, found
		if err == nil && found == resolveDone {
			outcome, err = end(tx, &c)
			out = c
		}
		if err == nil && outcome != resolveDone {
			err = errNoChange
		}
		return err
	})
	switch {
	case err != nil:
		return Clarification{}, fmt.Errorf("store: %s clarification %d: %w", op, id, err)
	case outcome == resolveNotFound:
		return Clarification{}, fmt.Errorf("store: %s clarification %d: %w", op, id, ErrNotFound)
	case outcome == resolveLost:
		return out, fmt.Errorf("store: %s clarification %d: %w (%s)", op, id, ErrAlreadyResolved,
			out.Outcome())
	case outcome == resolveLate:
		return out, fmt.Errorf("store: %s clarification %d: %w at %s", op, id, ErrExpired,
			out.ExpiresAt.Format(time.RFC3339))
	}
	return out, nil
}

// pendingClarification reads clarification id inside tx to end it: resolveDone when it
// is pending, resolveNotFound when there is none, resolveLost (with the clarification)
// when it has ended already.
func pendingClarification(tx *bolt.Tx, id uint64) (Clarification, resolveOutcome, error) {
	c, ok, err := getClarification(tx, id)
	switch {
	case err != nil:
		return Clarification{}, resolveNotFound, err
	case !ok:
		return Clarification{}, resolveNotFound, nil
	case c.Status != ClarificationPending:
		return c, resolveLost, nil
	}
	return c, resolveDone, nil
}

// cut shortens s to at most n bytes on a rune boundary, marking the cut with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// putClarification writes c with its clarifications_unfinal entry.
func putClarification(tx *bolt.Tx, c Clarification) error {
	if err := putJSON(tx.Bucket(bucketClars), u64(c.ID), c); err != nil {
		return err
	}
	return markUnfinal(tx, bucketClarUnfinal, c.ID, c.Messages)
}

// closeClarification ends pending c as status (expired or cancelled) with res inside
// tx and audits it.
func (d *DB) closeClarification(tx *bolt.Tx, c *Clarification, status ClarificationStatus,
	res Resolution) error {
	if err := tx.Bucket(bucketClarPending).Delete(timeIDKey(c.ExpiresAt, c.ID)); err != nil {
		return err
	}
	c.Status, c.Closed = status, &res
	if err := putClarification(tx, *c); err != nil {
		return err
	}
	action := AuditClarificationCancelled
	if status == ClarificationExpired {
		action = AuditClarificationExpired
	}
	detail := "session=" + c.SessionID
	if res.Note != "" {
		detail += " note=" + strconv.Quote(res.Note)
	}
	return d.appendAudit(tx, AuditEntry{By: res.By, Via: res.Via, Action: action,
		ClarificationID: c.ID, Detail: detail})
}

// CancelClarification cancels pending clarification id with res (a zero At is now;
// Note is the reason) and its audit entry "clarification.cancelled". Errors, changing
// nothing: ErrNotFound; ErrAlreadyResolved with the stored clarification; ErrInvalid
// for an empty res.By.
func (d *DB) CancelClarification(id uint64, res Resolution) (Clarification, error) {
	if res.At.IsZero() {
		res.At = d.now()
	}
	if res.By == "" {
		return Clarification{}, fmt.Errorf(
			"store: cancel clarification %d: %w: who (by) is required", id, ErrInvalid)
	}
	return d.endClarification(id, "cancel", func(tx *bolt.Tx, c *Clarification) (
		resolveOutcome, error) {
		return resolveDone, d.closeClarification(tx, c, ClarificationCancelled, res)
	})
}

// CancelSessionClarifications cancels, with res (a zero At is now) and an audit entry
// each, every pending clarification of the session in one transaction, and returns
// them oldest first. None pending is an empty result and writes nothing. ErrInvalid
// when res has no By.
func (d *DB) CancelSessionClarifications(sessionID string,
	res Resolution) ([]Clarification, error) {
	if res.At.IsZero() {
		res.At = d.now()
	}
	if res.By == "" {
		return nil, fmt.Errorf("store: cancel the clarifications of session %q: %w: "+
			"who (by) is required", sessionID, ErrInvalid)
	}
	out, err := endEach(d, func(tx *bolt.Tx) ([]Clarification, error) {
		return pendingClarsWhere(tx, func(c Clarification) bool {
			return c.SessionID == sessionID
		})
	}, func(tx *bolt.Tx, c *Clarification) error {
		return d.closeClarification(tx, c, ClarificationCancelled, res)
	})
	if err != nil {
		return nil, fmt.Errorf("store: cancel the clarifications of session %q: %w",
			sessionID, err)
	}
	return out, nil
}

// ExpireDueClarifications marks expired, by "system" via "gate" at now with an audit
// entry "clarification.expired" each, every pending clarification whose ExpiresAt is
// not after now, and returns them oldest first. When nothing is due it writes nothing.
func (d *DB) ExpireDueClarifications(now time.Time) ([]Clarification, error) {
	var out []Clarification
	err := d.expireDue(bucketClarPending, now, func(tx *bolt.Tx, id uint64) (bool, error) {
		c, ok, err := getClarification(tx, id)
		if err != nil || !ok || c.Status != ClarificationPending {
			return false, err
		}
		res := Resolution{By: actorExpiry.By, Via: actorExpiry.Via, At: now}
		if err := d.closeClarification(tx, &c, ClarificationExpired, res); err != nil {
			return false, err
		}
		out = append(out, c)
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: expire due clarifications: %w", err)
	}
	slices.SortFunc(out, func(a, b Clarification) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// updateClarification applies change to clarification id in one transaction and
// writes it when change reports a change.
func (d *DB) updateClarification(id uint64,
	change func(tx *bolt.Tx, c *Clarification) (bool, error)) error {
	return d.update(func(tx *bolt.Tx) error {
		c, ok, err := getClarification(tx, id)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		changed, err := change(tx, &c)
		if err != nil {
			return err
		}
		if !changed {
			return errNoChange
		}
		return putClarification(tx, c)
	})
}

// AddClarificationMessage records that clarification id is shown by chat message m
// (a zero ShownAt is now). A message already recorded writes nothing. Errors (nothing
// written): ErrNotFound, ErrInvalid (empty channel, chat or ref).
func (d *DB) AddClarificationMessage(id uint64, m Message) error {
	m, err := d.checkMessage(m)
	if err == nil {
		err = d.updateClarification(id, func(_ *bolt.Tx, c *Clarification) (bool, error) {
			return addMessage(&c.Messages, m), nil
		})
	}
	if err != nil {
		return fmt.Errorf("store: add message to clarification %d: %w", id, err)
	}
	return nil
}

// MarkClarificationMessagesFinal marks every message of clarification id as edited
// to its outcome. When all are final it writes nothing. ErrNotFound when it does not
// exist.
func (d *DB) MarkClarificationMessagesFinal(id uint64) error {
	err := d.updateClarification(id, func(_ *bolt.Tx, c *Clarification) (bool, error) {
		return finalMessages(c.Messages), nil
	})
	if err != nil {
		return fmt.Errorf("store: mark messages of clarification %d final: %w", id, err)
	}
	return nil
}

// MarkClarificationMessageFinal marks message m (by channel, chat and ref) of
// clarification id as edited to its outcome. An unknown or already final message
// writes nothing. Errors (nothing is written): ErrNotFound (no such clarification),
// ErrWrite.
func (d *DB) MarkClarificationMessageFinal(id uint64, m Message) error {
	err := d.updateClarification(id, func(_ *bolt.Tx, c *Clarification) (bool, error) {
		return finalMessage(c.Messages, m), nil
	})
	if err != nil {
		return fmt.Errorf("store: mark message %s of clarification %d final: %w", m.Ref, id, err)
	}
	return nil
}

// UnfinalizedClarifications returns every finished clarification that still has a
// chat message not edited to its outcome, oldest first.
func (d *DB) UnfinalizedClarifications() ([]Clarification, error) {
	out, err := unfinalized(d, bucketClarUnfinal, getClarification,
		func(c Clarification) bool { return c.Status == ClarificationPending })
	if err != nil {
		return nil, fmt.Errorf("store: unfinalized clarifications: %w", err)
	}
	return out, nil
}

// BindReply records that a reply by p.UserID to chat message p (channel, chat, ref)
// answers clarification id. Binding the same message again writes nothing. Errors
// (nothing written): ErrNotFound, ErrInvalid (an empty field, or a message bound to
// another clarification).
func (d *DB) BindReply(id uint64, p ReplyPrompt) error {
	if p.Channel == "" || p.ChatID == "" || p.Ref == "" || p.UserID == "" {
		return fmt.Errorf("store: bind reply to clarification %d: %w: "+
			"channel, chat_id, ref and user_id are required", id, ErrInvalid)
	}
	k := strKey(p.Channel, p.ChatID, p.Ref)
	err := d.updateClarification(id, func(tx *bolt.Tx, c *Clarification) (bool, error) {
		idx := tx.Bucket(bucketClarByReply)
		if v := idx.Get(k); v != nil {
			if readU64(v) != id {
				return false, fmt.Errorf("%w: the message is bound to clarification %d",
					ErrInvalid, readU64(v))
			}
			return false, nil
		}
		if err := idx.Put(k, u64(id)); err != nil {
			return false, err
		}
		c.Replies = append(c.Replies, p)
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("store: bind reply to clarification %d: %w", id, err)
	}
	return nil
}

// ClarificationByReply returns the clarification a reply to chat message (channel,
// chat, ref) answers, with the prompt it was bound by; ErrNotFound when none is.
func (d *DB) ClarificationByReply(
	channel, chatID, ref string) (Clarification, ReplyPrompt, error) {
	c, err := viewOne(d, func(tx *bolt.Tx) (Clarification, bool, error) {
		return getIndexed(tx, bucketClarByReply, strKey(channel, chatID, ref), getClarification)
	})
	if err != nil {
		return Clarification{}, ReplyPrompt{}, fmt.Errorf(
			"store: clarification of %s message %s in chat %s: %w", channel, ref, chatID, err)
	}
	var p ReplyPrompt
	for _, r := range c.Replies {
		if r.Channel == channel && r.ChatID == chatID && r.Ref == ref {
			p = r
		}
	}
	return c, p, nil
}

// pruneClarifications deletes the finished clarifications that ended before before,
// with their index entries.
func pruneClarifications(tx *bolt.Tx, before time.Time) (int, error) {
	b := tx.Bucket(bucketClars)
	doomed, err := prunable(b, before, func(cl Clarification) time.Time { return cl.CreatedAt },
		func(cl Clarification) bool {
			at, ok := cl.endedAt()
			return ok && at.Before(before)
		})
	if err != nil {
		return 0, err
	}
	for _, cl := range doomed {
		if err := b.Delete(u64(cl.ID)); err != nil {
			return 0, err
		}
		if err := tx.Bucket(bucketClarUnfinal).Delete(u64(cl.ID)); err != nil {
			return 0, err
		}
		for _, p := range cl.Replies {
			k := strKey(p.Channel, p.ChatID, p.Ref)
			if readU64(tx.Bucket(bucketClarByReply).Get(k)) == cl.ID {
				if err := tx.Bucket(bucketClarByReply).Delete(k); err != nil {
					return 0, err
				}
			}
		}
		if cl.ClarificationID != "" {
			k := strKey(cl.ClarificationID, cl.SessionID)
			if readU64(tx.Bucket(bucketClarByCID).Get(k)) == cl.ID {
				if err := tx.Bucket(bucketClarByCID).Delete(k); err != nil {
					return 0, err
				}
			}
		}
	}
	return len(doomed), nil
}

// endedAt is when a finished clarification ended; false while it is pending.
func (c Clarification) endedAt() (time.Time, bool) {
	switch {
	case c.Status == ClarificationPending:
		return time.Time{}, false
	case c.Answer != nil:
		return c.Answer.At, true
	case c.Closed != nil:
		return c.Closed.At, true
	}
	return time.Time{}, false
}

// checkClarifications is Verify's look at the clarification buckets: every record
// decodes, and every pending index entry points to a pending clarification.
func checkClarifications(tx *bolt.Tx) error {
	b := tx.Bucket(bucketClars)
	if b == nil {
		return nil // a file of a build before clarifications: Open adds the buckets
	}
	if err := b.ForEach(func(k, v []byte) error {
		var c Clarification
		return decodeJSON(k, v, &c)
	}); err != nil {
		return fmt.Errorf("%w: clarifications: %v", ErrCorrupt, err)
	}
	p := tx.Bucket(bucketClarPending)
	if p == nil {
		return fmt.Errorf("%w: clarifications without their pending index", ErrCorrupt)
	}
	return p.ForEach(func(k, _ []byte) error {
		c, ok, err := getClarification(tx, idSuffix(k))
		if err != nil || !ok || c.Status != ClarificationPending {
			return fmt.Errorf("%w: pending index names clarification %d, which is not pending",
				ErrCorrupt, idSuffix(k))
		}
		return nil
	})
}

// ClarificationByCallerID returns the clarification stored for (sessionID,
// clarificationID), or ErrNotFound (also for an empty clarificationID).
func (d *DB) ClarificationByCallerID(sessionID, clarificationID string) (Clarification, error) {
	c, err := viewOne(d, func(tx *bolt.Tx) (Clarification, bool, error) {
		if clarificationID == "" {
			return Clarification{}, false, nil
		}
		return getIndexed(tx, bucketClarByCID, strKey(clarificationID, sessionID),
			getClarification)
	})
	if err != nil {
		return Clarification{}, fmt.Errorf("store: clarification %q of session %q: %w",
			clarificationID, sessionID, err)
	}
	return c, nil
}
