package bot

import (
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// Options configure a Bot.
type Options struct {
	// Gate resolves requests and edits rules, groups and bypasses. Required.
	Gate *gate.Manager
	// Access says who is an approver or an admin on each channel.
	Access Access
	// Jobs lists and starts scheduled jobs; nil means none are
	// configured.
	Jobs Jobs
	// BypassShort is bypass_short: the window of the ⏱ button and of the bypass
	// command without a length; zero means DefaultBypassShort.
	BypassShort time.Duration
	// FollowUps posts the "➕ Always" offers after an admin's approval (the Fanout
	// that shows the prompts, with FanoutOptions.Meta); nil means none are made.
	FollowUps *Fanout
	// Logger nil means slog.Default(); the Bot adds component=bot.
	Logger *slog.Logger
}

// Bot is the channel-agnostic chat logic the adapters call: HandleTap for a button
// tapped under a prompt, Command for an admin command typed in a chat. It keeps no
// state of its own; every decision goes through the gate. Safe for concurrent use.
type Bot struct {
	gate   *gate.Manager
	access Access
	jobs   Jobs
	short  time.Duration
	log    *slog.Logger

	followUps *Fanout
}

// New returns a Bot. Error: opt.Gate is nil.
func New(opt Options) (*Bot, error) {
	if opt.Gate == nil {
		return nil, errors.New("bot: new: no gate")
	}
	return &Bot{gate: opt.Gate, access: opt.Access, jobs: opt.Jobs,
		short: bypassShort(opt.BypassShort), log: componentLog(opt.Logger),
		followUps: opt.FollowUps}, nil
}

// componentLog is l, or slog.Default() when l is nil, with component=bot.
func componentLog(l *slog.Logger) *slog.Logger {
	if l == nil {
		l = slog.Default()
	}
	return l.With("component", "bot")
}

// Role returns the role of user id on channel (Access.Role).
func (b *Bot) Role(channel, userID string) Role { return b.access.Role(channel, userID) }

// actor is who a chat user is in resolutions and the audit log: their
// display name and id, "Jane Doe (100000001)", or the id alone when there is no name.
func actor(channel, name, id string) store.Actor {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" || name == id {
		return store.Actor{By: clip(id, 100), Via: channel}
	}
	return store.Actor{By: clip(name, 100) + " (" + clip(id, 100) + ")", Via: channel}
}
