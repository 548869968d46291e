package main

import (
	"log/slog"
	"strconv"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/channels/telegram"
	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// newFanout returns the gate's notifier: it shows each approval request on every
// configured chat and keeps the outbox (docs/design.md, "Chat prompts"). A send or an
// edit it gives up on counts in metrics' skald_channel_send_errors_total. With no chat
// channel configured it has nothing to do.
func newFanout(cfg *config.Config, db *store.DB, metrics *api.Metrics,
	log *slog.Logger) *bot.Fanout {
	return bot.NewFanout(bot.FanoutOptions{Store: db, Unfinalized: db.Unfinalized,
		BypassShort: cfg.BypassShort.Duration, Logger: log, Meta: db,
		OnFailure: func(f bot.Failure) { metrics.ChannelSendError(f.Channel) }})
}

// chatComponents builds the chat logic (bot.Bot, with each enabled channel's approvers
// and admins; its job commands go to sched) and the channels the configuration
// enables, adds the channels to fan and returns the components in start order: the
// Fanout, the notices of finished runs (subscribed to gt's events here, before anything
// starts), then each channel, so the channels stop before the Fanout. Errors: a
// channel's invalid options.
func chatComponents(cfg *config.Config, gt *gate.Manager, db *store.DB, fan *bot.Fanout,
	sched *cron.Engine, log *slog.Logger) ([]component, error) {
	access := bot.Access{}
	if t := cfg.Telegram; t.Enabled() {
		access[telegram.Name] = bot.Roles{
			Approvers: decimalIDs(t.Approvers),
			Admins:    decimalIDs(t.Admins),
		}
	}
	if s := cfg.Slack; s.Enabled() {
		access[slack.ChannelName] = bot.Roles{Approvers: s.Approvers, Admins: s.Admins}
	}
	b, err := bot.New(bot.Options{Gate: gt, Access: access, Jobs: chatJobs{sched},
		BypassShort: cfg.BypassShort.Duration, Logger: log, FollowUps: fan})
	if err != nil {
		return nil, err
	}
	notices, err := bot.NewNotices(bot.NoticesOptions{Events: gt, Fanout: fan, Logger: log})
	if err != nil {
		return nil, err
	}
	comps := []component{{"fanout", fan.Run}, {"notices", notices.Run}}
	if t := cfg.Telegram; t.Enabled() {
		opt := t.Options()
		opt.Handler, opt.Store, opt.Logger = b, db, log
		tg, err := telegram.New(opt)
		if err != nil {
			return nil, err
		}
		if err := fan.Add(tg); err != nil {
			return nil, err
		}
		comps = append(comps, component{"telegram", tg.Run})
	}
	if s := cfg.Slack; s.Enabled() {
		sl, err := slack.New(slack.Options{
			BotToken:      s.BotToken.Reveal(),
			AppToken:      s.AppToken.Reveal(),
			SigningSecret: s.SigningSecret.Reveal(),
			APIURL:        s.APIURL,
			HTTPListen:    s.HTTPListen,
			Channels:      s.Channels,
			Bot:           b,
			Deliveries:    db,
			Logger:        log,
		})
		if err != nil {
			return nil, err
		}
		if err := fan.Add(sl); err != nil {
			return nil, err
		}
		comps = append(comps, component{"slack", sl.Run})
	}
	return comps, nil
}

// decimalIDs writes Telegram ids as bot.Access keys them.
func decimalIDs(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
	}
	return out
}
