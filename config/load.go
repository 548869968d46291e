package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads the configuration file at path, expands ${VAR} from the process
// environment, parses, defaults and validates it (Parse), then resolves its paths
// (Resolve) and records the file's absolute path in File. It touches nothing on disk
// but reads. Errors: ErrNotFound when the file does not exist; ErrSyntax; ErrInvalid
// (every problem found, joined: those of Parse and of Resolve in one pass); or an I/O
// error — each starting "config:" and never holding a secret.
func Load(path string) (*Config, error) {
	c, err := Check(path)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Check is Load for a caller that lists problems (config check): the same errors, and
// with ErrInvalid also the config as decoded and defaulted, so that more of it can be
// checked. Such a config must not be used to run anything.
func Check(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("config: %w: %s", ErrNotFound, path)
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := parse(data, os.Getenv)
	if c == nil {
		return nil, err
	}
	if rerr := c.Resolve(path); rerr != nil || err != nil {
		return c, joinProblems(Problems(err), rerr)
	}
	return c, nil
}

// Parse builds a Config from the bytes of a configuration file, with no I/O, in the
// steps the package doc tells: ${VAR} expansion with getenv (nil means os.Getenv),
// strict decoding, defaults, validation. Paths are left as written (see Resolve). An
// empty file is a valid, all-default configuration. Errors wrap ErrSyntax, or join
// one *FieldError (ErrInvalid) per problem — among them an api.token or agent token
// whose ${VAR} expands to "".
func Parse(data []byte, getenv func(string) string) (*Config, error) {
	c, err := parse(data, getenv)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// parse is Parse, also returning the decoded, defaulted config when only validation
// failed (nil on any other error).
func parse(data []byte, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	raw := data
	data, err := expand(data, getenv)
	if err != nil {
		return nil, err
	}
	c := new(Config)
	if err := decode(data, c); err != nil {
		return nil, err
	}
	c.setDefaults()
	unset := unsetTokenVars(raw, getenv)
	if err := c.validate(); err != nil || len(unset) > 0 {
		return c, joinProblems(unset, err)
	}
	return c, nil
}

// unsetMarker stands for a variable that expands to "" while unsetTokenVars looks for
// it; it is a plain YAML word in any context.
const unsetMarker = "__skald_unset_variable_"

var unsetRE = regexp.MustCompile(unsetMarker + `([A-Za-z0-9_]+)__`)

// unsetTokenVars returns a *FieldError for api.token and each agent token whose
// ${VAR} expands to "": a token that vanishes with a missing variable must stop
// start-up, not leave the API without it. A chat token may be empty (its channel is
// off), so only these keys are looked at.
func unsetTokenVars(raw []byte, getenv func(string) string) []error {
	if !bytes.Contains(raw, []byte("${")) {
		return nil
	}
	marked, err := expand(raw, func(name string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return unsetMarker + name + "__"
	})
	if err != nil {
		return nil
	}
	var doc struct {
		API struct {
			Token       string `yaml:"token"`
			AgentTokens []struct {
				Token string `yaml:"token"`
			} `yaml:"agent_tokens"`
		} `yaml:"api"`
	}
	if yaml.Unmarshal(marked, &doc) != nil {
		return nil // decode has reported the problem already
	}
	var out []error
	check := func(key, v string) {
		if m := unsetRE.FindStringSubmatch(v); m != nil {
			out = append(out, &FieldError{Key: key, Problem: fmt.Sprintf(
				"${%s} is empty or unset (set it, or leave %s out)", m[1], key)})
		}
	}
	check("api.token", doc.API.Token)
	for i, t := range doc.API.AgentTokens {
		check(fmt.Sprintf("api.agent_tokens[%d].token", i), t.Token)
	}
	return out
}

// joinProblems joins first with the problems of err, leaving out those of err about
// a key first already reports.
func joinProblems(first []error, err error) error {
	keys := map[string]bool{}
	for _, e := range first {
		if fe, ok := e.(*FieldError); ok {
			keys[fe.Key] = true
		}
	}
	all := append([]error(nil), first...)
	for _, e := range Problems(err) {
		if fe, ok := e.(*FieldError); ok && keys[fe.Key] {
			continue
		}
		all = append(all, e)
	}
	return errors.Join(all...)
}

// Problems returns the problems an error of Load, Check, Parse or Resolve joins: err
// alone when it joins none, nil for nil.
func Problems(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// decode decodes the single YAML document in data into c, strictly.
func decode(data []byte, c *Config) error {
	// A first pass into a node tree gives each line's key path for the messages.
	var root yaml.Node
	err := yaml.Unmarshal(data, &root)
	if err != nil {
		return syntaxError(err, nil)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err = dec.Decode(c)
	if errors.Is(err, io.EOF) {
		return nil // an empty file
	}
	if err != nil {
		return syntaxError(err, keyPaths(&root))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return syntaxf("config: more than one YAML document")
	}
	return nil
}

var (
	lineRE    = regexp.MustCompile(`^line (\d+): `)
	unknownRE = regexp.MustCompile(`^field (.+) not found in type \S+$`)
	dupRE     = regexp.MustCompile(`^mapping key "(.*)" already defined at line (\d+)$`)
	intoRE    = regexp.MustCompile("^cannot unmarshal (!!\\w+)(?: `(.*)`)? into (.+)$")
)

// syntaxError rewrites a YAML error as "config: line N: <key>: <problem>", one error
// per problem, each wrapping ErrSyntax.
func syntaxError(err error, nodes map[int][]lineNode) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return syntaxf("config: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	errs := make([]error, 0, len(te.Errors))
	for _, e := range te.Errors {
		errs = append(errs, syntaxf("config: %s", describe(e, nodes)))
	}
	return errors.Join(errs...)
}

// syntaxf returns an error with the formatted message that wraps ErrSyntax.
func syntaxf(format string, args ...any) error {
	return &wrapped{msg: fmt.Sprintf(format, args...), err: ErrSyntax}
}

// wrapped is an error whose message does not repeat the sentinel it wraps.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// describe turns one yaml.TypeError line into a message naming the key.
func describe(e string, nodes map[int][]lineNode) string {
	m := lineRE.FindStringSubmatch(e)
	if m == nil {
		return e
	}
	line, _ := strconv.Atoi(m[1])
	rest := e[len(m[0]):]
	if u := unknownRE.FindStringSubmatch(rest); u != nil {
		key := u[1]
		if p := findKey(nodes[line], key); p != "" {
			key = p
		}
		return fmt.Sprintf("line %d: unknown key %s", line, key)
	}
	path, sep := "", ": "
	if u := intoRE.FindStringSubmatch(rest); u != nil {
		kind, value := u[1], u[2]
		path = findNode(nodes[line], kind, value)
		what := quote(value)
		switch kind {
		case "!!map":
			what = "a mapping"
		case "!!seq":
			what = "a list"
		}
		rest = fmt.Sprintf("%s is not %s", what, typeWord(u[3]))
	} else if d := dupRE.FindStringSubmatch(rest); d != nil {
		path = findKey(nodes[line], d[1])
		rest = "duplicate key (first at line " + d[2] + ")"
	} else {
		// Our own unmarshalers (Duration) start with the quoted value:
		// `"5x": not a duration`.
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			v, _ := strconv.Unquote(q)
			path, sep = findNode(nodes[line], "!!str", v), " "
		}
	}
	if path == "" {
		return fmt.Sprintf("line %d: %s", line, rest)
	}
	return fmt.Sprintf("line %d: %s%s%s", line, path, sep, rest)
}

// findKey returns the path of the mapping key written key on the line, or "".
func findKey(ns []lineNode, key string) string {
	path := ""
	for _, n := range ns {
		if n.key == key {
			path = n.path
		}
	}
	return path
}

// findNode returns the path of the node a type error is about: the last mapping or
// sequence on the line for !!map and !!seq (a block one starts on the line of its
// first key, after its parent), else the first scalar whose value matches (yaml cuts
// long values to 7 characters and "...").
func findNode(ns []lineNode, kind, value string) string {
	path := ""
	for _, n := range ns {
		switch {
		case kind == "!!map" && n.kind == yaml.MappingNode,
			kind == "!!seq" && n.kind == yaml.SequenceNode:
			path = n.path
		case kind != "!!map" && kind != "!!seq" && n.kind == yaml.ScalarNode &&
			(n.value == value || strings.HasSuffix(value, "...") &&
				strings.HasPrefix(n.value, strings.TrimSuffix(value, "..."))):
			return n.path
		}
	}
	return path
}

// typeWord names a Go type the way a YAML author thinks of it.
func typeWord(goType string) string {
	switch {
	case goType == "config.Duration":
		return "a duration (use 90s, 15m, 24h or 90d)"
	case goType == "string", goType == "config.Secret", goType == "cron.Overlap",
		goType == "cron.Notify":
		return "a string"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "config."):
		return "a mapping"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "an integer"
	case goType == "bool":
		return "true or false"
	}
	return goType
}

// lineNode is a value node of the document: its key path, kind and (for scalars)
// value, and for a mapping key the key as written.
type lineNode struct {
	path  string
	key   string
	kind  yaml.Kind
	value string
}

// keyPaths lists, for each line of the document, the nodes that start on it, in
// document order.
func keyPaths(root *yaml.Node) map[int][]lineNode {
	out := map[int][]lineNode{}
	var walk func(n *yaml.Node, path, key string)
	walk = func(n *yaml.Node, path, key string) {
		if path != "" {
			out[n.Line] = append(out[n.Line],
				lineNode{path: path, key: key, kind: n.Kind, value: n.Value})
		}
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path, "")
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i), "")
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				if k.Line != v.Line {
					// A key whose value starts on a later line still names its key.
					out[k.Line] = append(out[k.Line],
						lineNode{path: p, key: k.Value, kind: yaml.ScalarNode})
				}
				walk(v, p, k.Value)
			}
		}
	}
	walk(root, "", "")
	return out
}
