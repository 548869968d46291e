package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// TestLoadProjects checks a profile's own workspace_root: relative to the file's
// directory, resolved, the working directory defaulting to it and relative to it.
func TestLoadProjects(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"svc", "proj/src", "other"} {
		mkdir(t, filepath.Join(dir, d))
	}
	file := filepath.Join(dir, "svc", "skald.yaml")
	testkit.WriteFile(t, file, `
workspace_root: `+filepath.Join(dir, "svc")+`
profiles:
  - {id: proj, workspace_root: ../proj}
  - {id: src, workspace_root: `+filepath.Join(dir, "other")+`, working_directory: .}
  - {id: plain}
`)
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]string{}
	for _, p := range c.Profiles {
		got[p.ID] = [2]string{p.WorkspaceRoot, p.WorkingDirectory}
	}
	want := map[string][2]string{
		"proj":    {filepath.Join(real, "proj"), filepath.Join(real, "proj")},
		"src":     {filepath.Join(real, "other"), filepath.Join(real, "other")},
		"plain":   {"", filepath.Join(real, "svc")},
		"default": {"", filepath.Join(real, "svc")},
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("profile %s: workspace, working directory = %q, want %q", id, got[id], w)
		}
	}
	if rp := c.RulesProfiles(); rp[0].WorkspaceRoot != want["proj"][0] {
		t.Errorf("RulesProfiles()[0] = %+v", rp[0])
	}
}

func TestLoadProjectsRefused(t *testing.T) {
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "proj"))
	testkit.WriteFile(t, filepath.Join(dir, "file"), "")
	for _, c := range []struct{ name, profiles, want string }{
		{"missing", `[{id: a, workspace_root: nope}]`,
			`config: profiles[0].workspace_root "nope": no such directory`},
		{"a file", `[{id: a, workspace_root: file}]`,
			`config: profiles[0].workspace_root "file": not a directory`},
		{"twice", `[{id: a, workspace_root: proj}, {id: b, workspace_root: ./proj/}]`,
			`config: profiles[1].workspace_root "./proj/": ` +
				`is also the workspace of profile "a" (profiles[0])`},
		{"the top-level one", `[{id: a, workspace_root: .}]`,
			`config: profiles[0].workspace_root ".": ` +
				`is the top-level workspace_root (leave it out)`},
		{"NUL", `[{id: a, workspace_root: "a\0"}]`,
			`config: profiles[0].workspace_root "a\x00": must not contain a NUL byte`},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, c.name+".yaml")
			testkit.WriteFile(t, file, "workspace_root: "+dir+"\nprofiles: "+c.profiles+"\n")
			_, err := Load(file)
			if err == nil || !errors.Is(err, ErrInvalid) ||
				!strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("Load = %v, want %q", err, c.want)
			}
		})
	}
}
