package config

import (
	"bytes"
	"strings"
)

// expand replaces every ${NAME} in data by getenv(NAME), before the YAML is parsed.
// NAME is [A-Za-z_][A-Za-z0-9_]*; an unset variable gives "". "$$" is a
// literal "$" (so a job command can say "$${HOME}"); any other "$" is kept as is, so
// "$HOME" in a command stays "$HOME". Errors wrap ErrSyntax and name the line: a "${"
// with no "}" on its line, an invalid name, or a value holding a line break (which
// would change the YAML's structure). A value is never quoted in an error.
func expand(data []byte, getenv func(string) string) ([]byte, error) {
	if bytes.IndexByte(data, '$') < 0 {
		return data, nil
	}
	var out bytes.Buffer
	out.Grow(len(data))
	line := 1
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '\n' {
			line++
		}
		if c != '$' || i+1 == len(data) {
			out.WriteByte(c)
			continue
		}
		switch data[i+1] {
		case '$':
			out.WriteByte('$')
			i++
		case '{':
			end := bytes.IndexAny(data[i+2:], "}\n")
			if end < 0 || data[i+2+end] != '}' {
				return nil, syntaxf(
					"config: line %d: unterminated ${ (write $$ for a literal $)", line)
			}
			name := string(data[i+2 : i+2+end])
			if !validEnvName(name) {
				return nil, syntaxf("config: line %d: %s is not a variable reference "+
					"(want ${NAME}: letters, digits, _)", line, quote("${"+name+"}"))
			}
			v := getenv(name)
			if strings.ContainsAny(v, "\r\n") {
				return nil, syntaxf("config: line %d: the value of ${%s} holds a line break",
					line, name)
			}
			out.WriteString(v)
			i += 2 + end
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes(), nil
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
