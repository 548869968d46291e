package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-telegram/bot/models"
	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
)

// devUser is who the terminal taps as in `dev telegram`: the approver and admin of
// the dev configuration, in a private chat of the same id.
var devUser = models.User{ID: 100000001, FirstName: "You"}

// devShortcuts are the words `dev telegram` reads as a tap on a prompt's button: the
// first button whose label starts with the mark.
var devShortcuts = map[string]string{"a": "✅", "r": "❌", "15": "⏱", "s": "🔄"}

func newDevCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Try skald-bot without outside services",
	}
	tg := &cobra.Command{
		Use:   "telegram",
		Short: "Run a fake Telegram on 127.0.0.1 and tap its prompts from this terminal",
		Long: `Starts a fake Telegram Bot API server on 127.0.0.1 and prints the telegram
lines to put in skald.yaml; restart serve with them. Every message the bot sends to
you is shown here with its buttons, numbered. Type a line to act on the latest
message with buttons: a (✅ Approve), r (❌ Reject), 15 (⏱ the short bypass), s
(🔄 Session), or a button's number; a line starting with / is sent to the bot as a
chat command (/pending, /rules). Ctrl-C stops it; the port and the bot token change
at each start, and only the bot holding the token can send or edit a message.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A token of its own per run, and no GET: a local process that finds the
			// port (or a web fetch of a URL on it) cannot edit the prompts shown here.
			token := strconv.FormatInt(telegramtest.BotID, 10) + ":" + rand.Text()
			srv, err := telegramtest.New(telegramtest.Config{Token: token, PostOnly: true,
				Chats: []models.Chat{{ID: devUser.ID, Type: models.ChatTypePrivate,
					FirstName: devUser.FirstName}}})
			if err != nil {
				return err
			}
			defer srv.Close()
			d := &devPhone{srv: srv, out: cmd.OutOrStdout(), number: map[int]int{}}
			return d.run(cmd.Context(), cmd.InOrStdin())
		},
	}
	cmd.AddCommand(tg)
	return cmd
}

// devPhone is a terminal acting as the phone of devUser on a fake Bot API server.
type devPhone struct {
	srv *telegramtest.Server

	mu  sync.Mutex // guards out, latest, ended, number
	out io.Writer
	// number is the number each message is shown with, 1 for the first one shown:
	// Telegram's message ids count the user's messages too.
	number map[int]int
	// latest is the newest message showing buttons, by message id; 0 for none.
	latest int
	// ended is the message whose buttons went last (answered, expired or cancelled);
	// 0 for none.
	ended int
}

// run prints the configuration, then shows the bot's messages and reads taps from in
// until ctx is done; it returns nil then. An end of in leaves the messages shown.
func (d *devPhone) run(ctx context.Context, in io.Reader) error {
	d.say("fake Telegram Bot API at %s (Ctrl-C stops it)\n"+
		"put these lines in skald.yaml (in place of its telegram section), then restart "+
		"skald-bot serve:\n\n"+
		"telegram:\n  token: %q\n  api_url: %s\n  chats: [%d]\n  approvers: [%d]\n"+
		"  admins: [%d]\n\n"+
		"then tap the latest prompt: a, r, 15, s or a button's number; /pending and other "+
		"commands go to the bot\n",
		d.srv.URL(), d.srv.Token(), d.srv.URL(), devUser.ID, devUser.ID, devUser.ID)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { d.watch(ctx) })
	lines := make(chan string)
	// The reader ends at the end of in; a read blocked on a terminal ends with the
	// process.
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			cancel()
			wg.Wait()
			d.say("stopped\n")
			return nil
		case line := <-lines:
			if err := d.act(ctx, strings.TrimSpace(line)); err != nil {
				d.say("%v\n", err)
			}
		}
	}
}

// say prints a line under the lock, so messages and answers do not interleave.
func (d *devPhone) say(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.out, format, args...)
}

// watch shows every new message and edit in devUser's chat until ctx is done.
func (d *devPhone) watch(ctx context.Context) {
	shown := map[int]int{} // message id → versions shown
	for {
		var fresh []telegramtest.SentMessage
		err := d.srv.Wait(ctx, func() bool {
			fresh = fresh[:0]
			for _, m := range d.srv.Messages(devUser.ID) {
				if len(m.History) > shown[m.MessageID] {
					fresh = append(fresh, m)
				}
			}
			return len(fresh) > 0
		})
		if err != nil {
			return
		}
		for _, m := range fresh {
			shown[m.MessageID] = len(m.History)
			d.show(m)
		}
	}
}

// show prints message m as it is now, its buttons numbered.
func (d *devPhone) show(m telegramtest.SentMessage) {
	d.mu.Lock()
	defer d.mu.Unlock()
	what := "message"
	if len(m.History) > 1 {
		what = "edited"
	}
	if d.number[m.MessageID] == 0 {
		d.number[m.MessageID] = len(d.number) + 1
	}
	fmt.Fprintf(d.out, "\n── %s %d ──\n%s\n", what, d.number[m.MessageID], m.PlainText)
	if m.Keyboard == nil {
		if d.latest == m.MessageID {
			d.latest, d.ended = 0, m.MessageID
		}
		return
	}
	var labels []string
	for i, b := range buttons(m) {
		labels = append(labels, fmt.Sprintf("[%d] %s", i+1, b.Text))
	}
	fmt.Fprintf(d.out, "%s\n", strings.Join(labels, "  "))
	d.latest = max(d.latest, m.MessageID)
}

// buttons returns the buttons of m's keyboard, row by row.
func buttons(m telegramtest.SentMessage) []models.InlineKeyboardButton {
	if m.Keyboard == nil {
		return nil
	}
	return slices.Concat(m.Keyboard.InlineKeyboard...)
}

// act does what a typed line says: a chat command, or a tap on the latest message
// with buttons, whose toast it prints once the bot answered it.
func (d *devPhone) act(ctx context.Context, line string) error {
	switch {
	case line == "":
		return nil
	case strings.HasPrefix(line, "/"):
		_, err := d.srv.Inject(d.srv.MessageUpdate(devUser,
			models.Chat{ID: devUser.ID, Type: models.ChatTypePrivate}, line))
		return err
	}
	d.mu.Lock()
	id, ended := d.latest, d.ended
	shown := d.number[cmp.Or(id, ended)]
	d.mu.Unlock()
	m, ok := d.srv.Message(devUser.ID, id)
	bs := buttons(m)
	if !ok || len(bs) == 0 {
		if shown != 0 {
			return fmt.Errorf("message %d has no buttons any more (answered, expired or "+
				"cancelled): nothing to tap until the next prompt", shown)
		}
		return fmt.Errorf("no prompt with buttons to tap yet")
	}
	i := slices.IndexFunc(bs, func(b models.InlineKeyboardButton) bool {
		mark, ok := devShortcuts[strings.ToLower(line)]
		return ok && strings.HasPrefix(b.Text, mark)
	})
	if n, err := strconv.Atoi(line); i < 0 && err == nil && n >= 1 && n <= len(bs) {
		i = n - 1
	}
	if i < 0 {
		return fmt.Errorf("%q: type a, r, 15, s, a number from 1 to %d, or a /command",
			line, len(bs))
	}
	u := d.srv.CallbackQueryUpdate(devUser, devUser.ID, id, bs[i].CallbackData)
	if _, err := d.srv.Inject(u); err != nil {
		return err
	}
	d.say("tapped %s on message %d\n", bs[i].Text, shown)
	var toast string
	err := d.srv.Wait(ctx, func() bool {
		for _, a := range d.srv.Answers() {
			if a.CallbackQueryID == u.CallbackQuery.ID {
				toast = a.Text
				return true
			}
		}
		return false
	})
	if err != nil {
		return nil // stopped before the bot answered
	}
	d.say("→ %s\n", cmp.Or(toast, "(no toast)"))
	return nil
}
