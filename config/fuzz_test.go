package config

import (
	"errors"
	"os"
	"testing"
)

// FuzzParse checks Parse never panics, and returns either a valid Config or an
// error that is ErrSyntax or ErrInvalid. The corpus starts from the example file.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile("../config.example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	for _, s := range []string{
		"", "{}", "jobs: [{name: a, schedule: x, steps: [{tool: t, args: {a: [1, {b: c}]}}]}]",
		"approval_timeout: 1d1h", "api: {token: ${X}, agent_tokens: [{token: $$}]}",
		"a: &a [*a]", "telegram: {chats: [1, -2, 0x10]}", "profiles: [{id: x}, {id: x}]",
		"x: !!binary aGk=", "? [a]\n: b",
	} {
		f.Add([]byte(s))
	}
	env := func(k string) string {
		if k == "X" {
			return "tok"
		}
		return ""
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, env)
		if err != nil {
			if c != nil {
				t.Fatalf("Parse returned a Config with error %v", err)
			}
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is neither ErrSyntax nor ErrInvalid", err)
			}
			return
		}
		if c.DataDir == "" || c.API.Listen == "" || c.Log.Level == "" {
			t.Fatalf("defaults missing: %+v", c)
		}
		if _, ok := c.Profile(DefaultProfile); !ok {
			t.Fatalf("no default profile")
		}
	})
}
