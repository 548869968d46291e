package web

import (
	"html/template"
	"io/fs"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/rules"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"panel": func(p page, name string) panelRef { return panelRef{Data: p.Data, Name: name} },
	"rows":  func(p page, rs []rules.Rule) ruleRows { return ruleRows{P: p, Rules: rs} },
	"form": func(p page, panel string, prio int) ruleForm {
		return ruleForm{P: p, Panel: panel, Priority: prio}
	},
	"ts": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
}

// panelRef, ruleRows and ruleForm hand a rules panel's template the page with the
// panel's name, rules, or form defaults.
type (
	panelRef struct {
		Data any
		Name string
	}
	ruleRows struct {
		P     page
		Rules []rules.Rule
	}
	ruleForm struct {
		P        page
		Panel    string
		Priority int
	}
)

// parsePages parses each page template with the layout and the shared partials:
// pages["inbox"] renders templates/inbox.html inside the layout.
func parsePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	base, err := template.New("").Funcs(funcs).ParseFS(templateFS,
		"templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" || name == "partials" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, err
		}
		pages[name] = t
	}
	return pages, nil
}
