package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/config"
)

// Where client commands find the server (docs/cli.md).
const (
	envURL         = "SKALD_URL"
	envToken       = "SKALD_API_TOKEN"
	defaultServer  = "http://127.0.0.1:8377"
	cliActor       = "cli"
	configFlagHelp = "configuration file (else $" + config.EnvFile +
		", else ./" + config.DefaultFile + ")"
)

// connection is how a client command reaches the running server: --server, else
// $SKALD_URL, else the configuration's api.listen, else defaultServer. An admin
// command sends $SKALD_API_TOKEN, else the configuration's api.token, else the admin
// token file of its data_dir; an agent-side command (check, hook) sends
// $SKALD_API_TOKEN or nothing.
type connection struct {
	server string
	config string
	json   bool
	getenv func(string) string
}

func newConnection() *connection { return &connection{getenv: os.Getenv} }

// flags adds --server, --config and, when withJSON, --json to a client command and
// its subcommands.
func (c *connection) flags(cmd *cobra.Command, withJSON bool) {
	f := cmd.PersistentFlags()
	f.StringVar(&c.server, "server", "", "server URL (else $SKALD_URL, "+
		"else the configuration's api.listen, else "+defaultServer+")")
	f.StringVar(&c.config, "config", "", configFlagHelp)
	if withJSON {
		f.BoolVar(&c.json, "json", false, "print the server's answer as JSON")
	}
}

// client returns the API client of an admin command. Errors: a configuration named
// by --config or $SKALD_CONFIG that is missing or invalid, an invalid one at
// ./skald.yaml, or a token file that is there but unusable.
func (c *connection) client() (*api.Client, error) { return c.newClient(true) }

// agentClient returns the API client of an agent-side command (check, hook): it never
// reads api.token or the admin token file, which are not the agent's.
func (c *connection) agentClient() (*api.Client, error) { return c.newClient(false) }

func (c *connection) newClient(admin bool) (*api.Client, error) {
	server, token := c.server, c.getenv(envToken)
	if server == "" {
		server = c.getenv(envURL)
	}
	if server == "" || (admin && token == "") {
		cfg, err := c.loadConfig()
		if err != nil {
			return nil, err
		}
		if cfg != nil && server == "" {
			server = listenURL(cfg.API.Listen)
		}
		if cfg != nil && admin && token == "" {
			token = cfg.API.Token.Reveal()
			if token == "" {
				token, err = readAdminToken(adminTokenPath(cfg.DataDir))
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, err
				}
			}
		}
	}
	if server == "" {
		server = defaultServer
	}
	if !strings.Contains(server, "://") {
		server = "http://" + server
	}
	cl := api.NewClient(server, token)
	cl.Actor = cliActor
	return cl, nil
}

// loadConfig reads the configuration for its api section and its data_dir (joined to
// the file's directory when relative, as serve takes it): nil (and no error) when none
// was named and ./skald.yaml does not exist. It parses and validates the file but
// resolves no path through the file system (a client need not run where the service
// does).
func (c *connection) loadConfig() (*config.Config, error) {
	path, named := config.Locate(c.config, c.getenv)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !named {
		return nil, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", config.ErrNotFound, path)
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := config.Parse(data, c.getenv)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(cfg.DataDir) {
		cfg.DataDir = filepath.Join(filepath.Dir(path), cfg.DataDir)
	}
	return cfg, nil
}

// listenURL turns api.listen into the URL a client on this machine dials: a wildcard
// host becomes the loopback address.
func listenURL(listen string) string {
	if listen == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "http://" + listen
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// print writes v as indented JSON when --json is set, else calls text. The JSON is
// for people too: <, > and & are written as themselves, not \u003c (see
// unescapeHTML), and the control and bidi characters the prompts escape as JSON
// escapes (bot.Escape), so a terminal shows them and the JSON means the same.
func (c *connection) print(w io.Writer, v any, text func()) error {
	if !c.json {
		text()
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, bot.Escape(string(unescapeHTML(b.Bytes()))))
	return err
}

// unescapeHTML returns the JSON text data with the escapes \u003c, \u003e and \u0026
// in its strings written as <, > and &. encoding/json writes them when it escapes
// HTML — the server's answers, and arguments as the store keeps them — which a person
// reading `pending` or --json should not see. An escaped backslash before "u003e"
// stays as it is.
func unescapeHTML(data []byte) []byte {
	if !bytes.Contains(data, []byte(`\u00`)) {
		return data
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' || i+1 == len(data) {
			out = append(out, data[i])
			continue
		}
		if data[i+1] == 'u' && i+6 <= len(data) {
			switch string(data[i+2 : i+6]) {
			case "003c", "003C":
				out, i = append(out, '<'), i+5
				continue
			case "003e", "003E":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out, i = append(out, data[i], data[i+1]), i+1 // any other escape, \\ included
	}
	return out
}

// exitError ends the process with code without printing anything more (the command
// already said what happened): check's 1, 2 and 3. It is main's exitCoder.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// ExitCode returns the process's exit code.
func (e exitError) ExitCode() int { return e.code }

// Exit codes of check: 0 allow or approved, exitDenied, exitFailure (an
// error), exitPending.
const (
	exitDenied  = 1
	exitFailure = 2
	exitPending = 3
)

// addClientCommands adds the client subcommands, cancel, the hook
// and backup to root.
func addClientCommands(root *cobra.Command) {
	conn := newConnection()
	root.AddCommand(
		newCheckCmd(conn),
		newPendingCmd(conn),
		newResolveCmd(conn, api.ActionApprove),
		newResolveCmd(conn, api.ActionReject),
		newCancelCmd(conn),
		newRulesCmd(conn),
		newGroupsCmd(conn),
		newJobsCmd(conn),
		newHookCmd(conn),
		newBackupCmd(conn),
		newAuditCmd(conn),
		newBypassCmd(conn),
		newExplainCmd(conn),
		newAskCmd(conn),
		newAnswerCmd(conn),
	)
}

// newTable returns the aligned-column writer every listing prints with (two spaces
// between columns); the caller flushes it.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}

// printTable prints xs to w as a table (newTable): header, then row of each x, both
// tab-separated cells. With no xs and a none that is not "", it prints none instead.
func printTable[T any](w io.Writer, none, header string, xs []T, row func(T) string) {
	if len(xs) == 0 && none != "" {
		fmt.Fprintln(w, none)
		return
	}
	tw := newTable(w)
	fmt.Fprintln(tw, header)
	for _, x := range xs {
		fmt.Fprintln(tw, row(x))
	}
	tw.Flush()
}

// serverHint is err's message; for a refused connection, one that asks whether the
// server runs and names the URL tried.
func serverHint(err error) string {
	if !isRefused(err) {
		return err.Error()
	}
	tried := "the server's URL"
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			tried = u.Scheme + "://" + u.Host
		}
	}
	return "connection refused: is `skald-bot serve` running? (tried " + tried + ")"
}
