package rules

import "strings"

// toolKind is the shape of a tool_pattern.
type toolKind uint8

const (
	toolAny     toolKind = iota // "*"
	toolExact                   // "Bash"
	toolPrefix                  // "mcp__gmail__*"
	toolFSRead                  // "@fs_read"
	toolFSWrite                 // "@fs_write"
	toolFSAny                   // "@fs_any"
	toolNone                    // an unknown @class or an empty pattern: matches nothing
)

// parseTool returns the kind of a tool_pattern and, for exact and prefix patterns, the
// name or prefix. It accepts any string; patterns Validate refuses get the nearest
// harmless reading (an unknown class matches nothing, a misplaced star is literal).
func parseTool(p string) (toolKind, string) {
	switch {
	case p == "*":
		return toolAny, ""
	case p == "":
		return toolNone, ""
	case p[0] == '@':
		switch p {
		case ClassFSRead:
			return toolFSRead, ""
		case ClassFSWrite:
			return toolFSWrite, ""
		case ClassFSAny:
			return toolFSAny, ""
		}
		return toolNone, ""
	case strings.HasSuffix(p, "*") && strings.IndexByte(p, '*') == len(p)-1:
		return toolPrefix, p[:len(p)-1]
	}
	return toolExact, p
}

// pathKind is the shape of a path_pattern.
type pathKind uint8

const (
	pathExact   pathKind = iota // "secrets/key"
	pathSubtree                 // "secrets/*": secrets itself and everything under secrets/
	pathPrefix                  // "log*": every path that starts with "log"
)

// pathPattern is a resolved path_pattern ready to match normalised paths.
type pathPattern struct {
	kind pathKind
	s    string // the exact path, the subtree's directory, or the prefix
}

// parsePath reads a resolved path_pattern (see ResolvePattern).
func parsePath(p string) pathPattern {
	switch {
	case strings.HasSuffix(p, "/*"):
		return pathPattern{kind: pathSubtree, s: orRoot(p[:len(p)-2])}
	case strings.HasSuffix(p, "*"):
		return pathPattern{kind: pathPrefix, s: p[:len(p)-1]}
	}
	return pathPattern{kind: pathExact, s: p}
}

// match reports whether the normalised path matches the pattern.
func (p pathPattern) match(path string) bool {
	switch p.kind {
	case pathSubtree:
		return Under(path, p.s)
	case pathPrefix:
		return strings.HasPrefix(path, p.s)
	}
	return path == p.s
}
