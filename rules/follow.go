package rules

import (
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// A rule's path pattern follows the name it was written with: "secrets/*" covers what
// secrets is now, also after secrets was moved away and replaced by a symlink to where
// it went. A Set therefore keeps its patterns as written and a view of them resolved as
// the file system was when last looked at, together with every directory their
// resolution looked a name up in, each with its identity (device, inode, change time).
// Renaming, creating or removing a name in a directory, or changing its permissions,
// changes that directory's change time, which no user can set back; so while every
// such directory keeps its identity, every resolution still holds. A call with a path
// is decided on the last view, then checks its directories (one lstat each, most often
// the workspace root alone): when every one kept its identity since the view was
// built, the patterns held from then until the call's paths were resolved, so a path
// and the patterns are of one moment. Else the patterns are resolved again — the index
// rebuilt only when a resolution changed — and the call tries again on the new view;
// after three tries it is a require that nothing lifts. A change time within
// settleAfter of the clock cannot tell two changes made in the same tick of the file
// system's clock apart; such a view is resolved again on every call until its
// directories settle. Outside the workspace, where nobody swaps names under the
// agent's nose but busy directories such as /tmp change all the time, the entry looked
// up stands in for its directory: its identity without change time (device, inode,
// file type) tells what it is, and a symlink's target cannot change without a new
// inode; a change there is checked by resolving again, not by retrying. A mount over a
// directory changes no change time and is not seen; mounting needs root.
//
// With a Watcher (Options.Watcher, watch_linux.go), each directory is watched by
// inotify instead: the directory itself in the workspace, the entry's directory
// outside it (only events naming the entry count). The kernel queues an event within
// the system call that changes a name, so the check's one read of the queue sees every
// change completed before it; a directory with no event since an lstat, made after
// its watch was set, confirmed the view's identity is trusted without an lstat for
// watchRecheck (a mount is no event). Any event for it, a full queue (IN_Q_OVERFLOW),
// a removed watch, or a watch that cannot be set falls back to the lstat above. The
// same Watcher keeps the lookups of shell calls' path work (lookup_linux.go).

// settleAfter is how old a directory's change time must be before a resolution that
// depends on it is trusted until that time changes: longer than a tick of the kernel's
// coarse clock, which stamps change times (at most 10 ms). settleAfterCoarse applies
// to a file system that keeps whole seconds only.
const (
	settleAfter       = 30 * time.Millisecond
	settleAfterCoarse = 2 * time.Second
)

// watchRecheck is how long a Watcher trusts a dependency, or keeps a lookup, without
// an lstat: a mount over a directory is no inotify event, so it is seen within this
// time.
const watchRecheck = time.Second

// clock is the wall clock change times are compared with; tests move it.
var clock = time.Now

// lookups collects what a resolution's lookups depend on: a directory in the workspace
// (root or under it) that it looked a name up in, or, outside the workspace, the entry
// it looked up (marked by entryKey), so that a busy directory such as /tmp does not
// count as changed when what was looked up in it did not.
type lookups struct {
	root string
	deps map[string]struct{}
}

// entryKey marks an entry among the lookups' dependencies: no path starts with a NUL.
const entryKey = "\x00"

func (l *lookups) add(dir, entry string) {
	if l.deps == nil {
		l.deps = map[string]struct{}{}
	}
	if inWorkspace(dir, l.root) {
		l.deps[dir] = struct{}{}
	} else {
		l.deps[entryKey+entry] = struct{}{}
	}
}

// inWorkspace reports whether the absolute dir is root or lies under it.
func inWorkspace(dir, root string) bool {
	return root != "" && (dir == root || strings.HasPrefix(dir, root+"/") || root == "/")
}

// dep is what a view's resolutions depend on, with its identity when they were made:
// a directory in the workspace (inside), whose change time covers every name in it,
// or an entry outside, whose identity without change time tells what it is.
type dep struct {
	dir    string
	id     fileID
	inside bool
}

// now returns d's identity as it is now.
func (d *dep) now() fileID {
	if !d.inside {
		return entryID(d.dir)
	}
	id, _ := statID(d.dir) // a directory that does not exist is the zero identity until it does
	return id
}

// view is a Set's rules with their path patterns resolved as the file system was at
// one time (see above): immutable once built. The patterns are resolved in the
// workspace and again in each other project (Set.projects), since a form of a path
// relative to a project is decided by the patterns as they resolve there; the deps
// are those of every resolution.
type view struct {
	protected []string         // Options.Protected, normalised
	needs     []string         // Options.NeedsHuman, normalised
	groups    map[string]*tier // per non-default group with rules: its rules, then DefaultGroup's
	def       *tier            // the rules of DefaultGroup
	// resolved are the patterns and protected paths as resolved in each root: the
	// workspace, then each of Set.projects.
	resolved []map[string]string
	// names are the components of every pattern, protected path and project,
	// written and resolved in every root: the words of an argument string that may
	// name a place; set in the workspace's view only.
	names   placeNames
	deps    []dep
	settled bool // every dep's change time is old enough to be trusted
}

// tier returns the candidates of group: its own tier (its rules, then DefaultGroup's)
// when it has rules, else DefaultGroup's.
func (v *view) tier(group string) *tier {
	if group != DefaultGroup {
		if t := v.groups[group]; t != nil {
			return t
		}
	}
	return v.def
}

// held reports whether v's resolutions held throughout a call that took v before it
// resolved its paths; a directory in the workspace, where an agent may swap names,
// must have kept its identity, else the patterns may have changed and changed back
// meanwhile. When v has settled and every directory kept its identity, they held; else
// (a busy directory outside the workspace, such as /tmp on the way to a protected
// path, changes often without changing any resolution) they held when they resolve as
// they did. Whenever v is found out of date, a new view replaces it for later calls,
// so that one lstat per directory is all a call with a path costs while nothing
// changes.
func (s *Set) held(v *view) bool {
	switch v.check(s.opt.Watcher) {
	case viewHolds:
		return true
	case viewMoved:
		s.refresh(v)
		return false
	}
	nv, built := s.refresh(v)
	// A view another call built may be older than this call's resolutions.
	return sameResolved(nv.resolved, v.resolved) &&
		(built || nv.check(s.opt.Watcher) == viewHolds)
}

// sameResolved reports whether two views' resolutions are the same.
func sameResolved(a, b []map[string]string) bool {
	return slices.EqualFunc(a, b, maps.Equal[map[string]string])
}

// The answers of view.check.
const (
	viewHolds   = iota // settled, and every directory kept its identity
	viewChanged        // not settled, or a directory outside the workspace changed
	viewMoved          // a directory in the workspace changed
)

// check compares the identity of v's directories with what they are now: by lstat,
// except those w (when not nil) watches and saw no event for since an lstat
// confirmed the identity v holds (see the package comment above).
func (v *view) check(w *Watcher) int {
	out := viewHolds
	if !v.settled {
		out = viewChanged
	}
	var trusted [16]bool // the Watcher's answers for deps[i-i%16 : ...]
	for i := range v.deps {
		if i%len(trusted) == 0 && w != nil {
			chunk := v.deps[i:min(i+len(trusted), len(v.deps))]
			trusted = [16]bool{}
			w.trusted(chunk, trusted[:len(chunk)])
		}
		if trusted[i%len(trusted)] {
			continue
		}
		d := &v.deps[i]
		gen, watched := w.prepare(d)
		now := d.now()
		if now != d.id {
			if d.inside {
				return viewMoved
			}
			out = viewChanged
		} else if watched {
			w.confirm(d, gen, now)
		}
	}
	return out
}

// refresh replaces old, when it is still the Set's view, with a view built now, and
// returns the Set's view and whether it built it. Safe for concurrent use.
func (s *Set) refresh(old *view) (*view, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.view.Load()
	if v != old {
		return v, false
	}
	v = s.build(old)
	s.view.Store(v)
	return v, true
}

// build resolves every pattern and protected path again and returns the view they
// give; it reuses old's tiers when no resolution changed. The caller holds s.mu, or
// is Compile (old nil).
func (s *Set) build(old *view) *view {
	var prev []dep
	if old != nil {
		prev = old.deps
	}
	resolved, deps, settled := s.resolveAll(prev)
	if old != nil && sameResolved(old.resolved, resolved) {
		nv := *old
		nv.deps, nv.settled = deps, settled
		return &nv
	}
	projects := make([]*view, len(s.projects))
	for i, p := range s.projects {
		projects[i] = s.tiers(resolved[1+i], p.root, nil)
	}
	v := s.tiers(resolved[0], s.opt.WorkspaceRoot, projects)
	v.resolved, v.deps, v.settled = resolved, deps, settled
	v.names = placeNames{set: map[string]struct{}{}, fold: slices.Contains(s.fold, true)}
	for _, rm := range resolved { // every root's resolutions name places
		for k, r := range rm {
			v.names.add(strings.TrimPrefix(strings.TrimPrefix(k, protectedKey), needsKey))
			v.names.add(r)
		}
	}
	for _, p := range s.projects {
		v.names.add(p.form)
	}
	return v
}

// tiers returns a view holding the tiers of every group with the patterns and
// protected paths as resolved in root; projects, when not nil, are the views of the
// other projects, whose tiers the returned ones decide a project's forms in.
func (s *Set) tiers(resolved map[string]string, root string, projects []*view) *view {
	v := &view{groups: map[string]*tier{}}
	for _, p := range s.opt.Protected {
		v.protected = append(v.protected, resolved[protectedKey+p])
	}
	for _, p := range s.opt.NeedsHuman {
		v.needs = append(v.needs, resolved[needsKey+p])
	}
	link := func(group string) []*tier {
		if projects == nil {
			return nil
		}
		out := make([]*tier, len(projects))
		for i, pv := range projects {
			out[i] = pv.tier(group)
		}
		return out
	}
	def := s.withPaths(s.rules[DefaultGroup], resolved)
	v.def = s.newTier(def, v.protected, root, link(DefaultGroup))
	for id, rs := range s.rules {
		if id != DefaultGroup {
			v.groups[id] = s.newTier(append(s.withPaths(rs, resolved), def...), v.protected,
				root, link(id))
		}
	}
	v.def.needs = v.needs
	for _, t := range v.groups {
		t.needs = v.needs
	}
	return v
}

// placeNames are the names of places and projects that a word of an argument string
// may be (view.names). Where a root's file system folds case (Set.fold), a word is one
// in any case: SECRETS is secrets there.
type placeNames struct {
	set  map[string]struct{} // with fold, also each name in lower case
	fold bool
}

// add adds every component of the path p, a prefix pattern's without its star.
func (n placeNames) add(p string) {
	for _, c := range strings.Split(strings.TrimSuffix(p, "*"), "/") {
		if c != "" && c != "." && c != ".." {
			n.set[c] = struct{}{}
			if n.fold {
				n.set[strings.ToLower(c)] = struct{}{}
			}
		}
	}
}

// has reports whether w is one of the names. It allocates nothing for an ASCII w of up
// to 255 bytes.
func (n placeNames) has(w string) bool {
	if _, ok := n.set[w]; ok || !n.fold {
		return ok
	}
	var buf [255]byte
	if len(w) > len(buf) {
		_, ok := n.set[strings.ToLower(w)]
		return ok
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			_, ok := n.set[strings.ToLower(w)]
			return ok
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	_, ok := n.set[string(buf[:len(w)])]
	return ok
}

// folded returns w in lower case when the names fold case, else w.
func (n placeNames) folded(w string) string {
	if n.fold {
		return strings.ToLower(w)
	}
	return w
}

// protectedKey marks a protected path among the resolved patterns: no path pattern
// starts with a NUL byte.
const protectedKey = "\x00"

// needsKey likewise marks an Options.NeedsHuman path.
const needsKey = "\x01"

// resolveAll resolves every pattern and protected path, and returns them with the
// directories they depend on and whether those have settled. The directories'
// identities are taken before the resolution that counts, so that a change while it
// runs shows as a changed identity at the next call: first those of prev, the
// directories the last resolution depended on, which most often are the same again;
// else it resolves twice, taking them in between.
func (s *Set) resolveAll(prev []dep) ([]map[string]string, []dep, bool) {
	if len(prev) > 0 {
		before := make([]string, len(prev))
		for i := range prev {
			before[i] = prev[i].dir
			if !prev[i].inside {
				before[i] = entryKey + prev[i].dir
			}
		}
		deps, settled := s.identify(before)
		resolved, dirs := s.resolveOnce()
		if slices.Equal(dirs, before) {
			return resolved, deps, settled
		}
	}
	for try := 0; ; try++ {
		first, dirs := s.resolveOnce()
		deps, settled := s.identify(dirs)
		again, dirs2 := s.resolveOnce()
		if sameResolved(first, again) && slices.Equal(dirs, dirs2) {
			return again, deps, settled
		}
		if try == 2 { // still changing: resolve again at the next call
			return again, deps, false
		}
	}
}

// identify takes the identity of what the lookup keys name (see lookups) and reports
// whether they have all settled.
func (s *Set) identify(keys []string) ([]dep, bool) {
	deps := make([]dep, len(keys))
	settled := true
	now := clock()
	for i, k := range keys {
		d := dep{dir: k, inside: true}
		if e, ok := strings.CutPrefix(k, entryKey); ok {
			d = dep{dir: e}
		}
		d.id = d.now()
		settled = settled && d.id.settled(now)
		deps[i] = d
	}
	return deps, settled
}

// resolveOnce resolves every pattern and protected path in the workspace and in each
// other project, and returns them, by root as view.resolved holds them, with the
// sorted keys of what their lookups depend on (see lookups; each root is the
// workspace of its own lookups).
func (s *Set) resolveOnce() ([]map[string]string, []string) {
	var rec lookups
	out := make([]map[string]string, 1+len(s.projects))
	for i := range out {
		root := s.opt.WorkspaceRoot
		if i > 0 {
			root = s.projects[i-1].root
		}
		rec.root = root
		m := make(map[string]string,
			len(s.patterns)+len(s.opt.Protected)+len(s.opt.NeedsHuman))
		for _, p := range s.patterns {
			m[p] = s.foldRel(resolvePattern(p, root, &rec), i)
		}
		for _, p := range s.opt.Protected {
			m[protectedKey+p] = s.foldRel(normOrClean(p, root, &rec), i)
		}
		for _, p := range s.opt.NeedsHuman {
			m[needsKey+p] = s.foldRel(normOrClean(p, root, &rec), i)
		}
		out[i] = m
	}
	return out, slices.Sorted(maps.Keys(rec.deps))
}

// withPaths returns a copy of rules with their path patterns as resolved.
func (s *Set) withPaths(rules []crule, resolved map[string]string) []crule {
	out := slices.Clone(rules)
	for i := range out {
		if r := &out[i]; r.hasPath {
			r.path = parsePath(resolved[r.written])
		}
	}
	return out
}
