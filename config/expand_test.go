package config

import (
	"errors"
	"testing"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "alpha", "B_2": "b", "EMPTY": "", "NL": "x\ny", "CR": "x\r"}
	getenv := func(k string) string { return env[k] }
	tests := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"${A}", "alpha", ""},
		{"x: ${A}-${B_2}", "x: alpha-b", ""},
		{"${UNSET}|${EMPTY}", "|", ""},
		{"$$", "$", ""},
		{"$${A}", "${A}", ""},
		{"$$$${A}", "$${A}", ""},
		{"$$${A}", "$alpha", ""},
		{"$A $ $1 a$", "$A $ $1 a$", ""},
		{"# ${A} in a comment", "# alpha in a comment", ""},
		{"ünï ${A} ✓", "ünï alpha ✓", ""},
		{"a\nb: ${A", "", "config: line 2: unterminated ${ (write $$ for a literal $)"},
		{"${A\n}", "", "config: line 1: unterminated ${ (write $$ for a literal $)"},
		{"${}", "",
			`config: line 1: "${}" is not a variable reference (want ${NAME}: letters, digits, ` +
				`_)`},
		{"${1A}", "",
			`config: line 1: "${1A}" is not a variable reference (want ${NAME}: letters, ` +
				`digits, _)`},
		{"${A B}", "",
			`config: line 1: "${A B}" is not a variable reference (want ${NAME}: letters, ` +
				`digits, _)`},
		{"\n\n${NL}", "", "config: line 3: the value of ${NL} holds a line break"},
		{"${CR}", "", "config: line 1: the value of ${CR} holds a line break"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := expand([]byte(tt.in), getenv)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err || !errors.Is(err, ErrSyntax) {
					t.Errorf("expand(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("expand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestExpandErrorHidesValue checks a value that breaks the file is not shown.
func TestExpandErrorHidesValue(t *testing.T) {
	_, err := Parse([]byte("api:\n  token: ${T}\n"),
		func(string) string { return "tok-secret\nx: 1" })
	if err == nil || err.Error() != "config: line 2: the value of ${T} holds a line break" {
		t.Fatalf("err = %v", err)
	}
}
