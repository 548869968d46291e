package telegramtest

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-telegram/bot/models"
)

// parseHTML parses a text sent with parse_mode HTML the way the Bot API does
// (https://core.telegram.org/bots/api#html-style; the algorithm and its error texts
// are those of tdlib's parse_html in td/telegram/MessageEntity.cpp, which the Bot API
// server runs). It returns the text the user sees and its entities, offsets and
// lengths in UTF-16 code units. An error's message is what follows
// "Bad Request: can't parse entities: " in the Bot API's answer.
//
// One rule is stricter than Telegram: a "&" that does not start one of the entities
// &lt; &gt; &amp; &quot; or a numeric one (&#NNN; &#xHHH;) is an error here, because
// the docs require every "&" that is not part of an entity to be written &amp;;
// tdlib keeps it as a literal "&". A bare ">" is accepted, as by tdlib.
func parseHTML(s string) (string, []models.MessageEntity, error) {
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0 // tdlib reads a NUL-terminated string
	}
	type open struct {
		tag, arg string
		offset   int // UTF-16 offset of the entity's first character
		begin    int // byte offset of that character in out
	}
	var (
		out      strings.Builder
		utf16    int
		stack    []open
		entities []entity
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '&' {
			code, n, ok := decodeHTMLEntity(s[i:])
			if !ok {
				return "", nil, fmt.Errorf(`unescaped "&" at byte offset %d `+
					`(stricter than Telegram: the docs require "&amp;")`, i)
			}
			if 0xd800 <= code && code <= 0xdfff {
				return "", nil, errors.New("Text contains invalid Unicode characters " +
					"after decoding HTML entities, check for unmatched surrogate code units")
			}
			out.WriteRune(code)
			utf16 += utf16Len(code)
			i += n - 1
			continue
		}
		if c != '<' {
			if c&0xc0 != 0x80 { // first byte of a UTF-8 sequence
				utf16++
				if c >= 0xf0 { // four bytes: a surrogate pair in UTF-16
					utf16++
				}
			}
			out.WriteByte(c)
			continue
		}

		begin := i
		i++
		if at(i) != '/' { // start tag
			for !isHTMLSpace(at(i)) && at(i) != '>' {
				i++
			}
			if at(i) == 0 {
				return "", nil, fmt.Errorf("Unclosed start tag at byte offset %d", begin)
			}
			tag := strings.ToLower(s[begin+1 : i])
			if !supportedTags[tag] {
				return "", nil, fmt.Errorf("Unsupported start tag \"%s\" at byte offset %d",
					tag, begin)
			}
			var arg string
			for at(i) != '>' {
				for at(i) != 0 && isHTMLSpace(at(i)) {
					i++
				}
				if at(i) == '>' {
					break
				}
				attrBegin := i
				for !isHTMLSpace(at(i)) && at(i) != '=' && at(i) != '>' {
					i++
				}
				name := s[attrBegin:i]
				if name == "" {
					return "", nil, fmt.Errorf(
						"Empty attribute name in the tag \"%s\" at byte offset %d", tag, begin)
				}
				for at(i) != 0 && isHTMLSpace(at(i)) {
					i++
				}
				if at(i) != '=' {
					if tag == "blockquote" && name == "expandable" { // <blockquote expandable>
						arg = "expandable"
						continue
					}
					return "", nil, fmt.Errorf("Expected equal sign in declaration of "+
						"an attribute of the tag \"%s\" at byte offset %d", tag, begin)
				}
				i++
				for at(i) != 0 && isHTMLSpace(at(i)) {
					i++
				}
				if at(i) == 0 {
					return "", nil, fmt.Errorf("Unclosed start tag \"%s\" at byte offset %d",
						tag, begin)
				}
				var value string
				if q := at(i); q != '\'' && q != '"' { // a name token, not case sensitive
					tokenBegin := i
					for isAlnum(at(i)) || at(i) == '.' || at(i) == '-' {
						i++
					}
					value = strings.ToLower(s[tokenBegin:i])
					if !isHTMLSpace(at(i)) && at(i) != '>' {
						return "", nil, fmt.Errorf(
							"Unexpected end of name token at byte offset %d", tokenBegin)
					}
				} else { // a string literal; entities are decoded, an unknown one kept
					i++
					var v strings.Builder
					for at(i) != q && at(i) != 0 {
						if at(i) == '&' {
							if code, n, ok := decodeHTMLEntity(s[i:]); ok {
								v.WriteRune(code)
								i += n
								continue
							}
						}
						v.WriteByte(s[i])
						i++
					}
					if at(i) == q {
						i++
					}
					value = v.String()
				}
				if at(i) == 0 {
					return "", nil, fmt.Errorf("Unclosed start tag at byte offset %d", begin)
				}
				switch {
				case tag == "a" && name == "href":
					arg = value
				case tag == "code" && name == "class" && strings.HasPrefix(value, "language-"):
					arg = value[len("language-"):]
				case tag == "span" && name == "class" && strings.HasPrefix(value, "tg-"):
					arg = value[len("tg-"):]
				case tag == "tg-emoji" && name == "emoji-id":
					arg = value
				}
			}
			if tag == "span" && arg != "spoiler" {
				return "", nil, fmt.Errorf(
					"Tag \"span\" must have class \"tg-spoiler\" at byte offset %d", begin)
			}
			stack = append(stack, open{tag: tag, arg: arg, offset: utf16, begin: out.Len()})
			continue
		}

		// end tag
		if len(stack) == 0 {
			return "", nil, fmt.Errorf("Unexpected end tag at byte offset %d", begin)
		}
		for !isHTMLSpace(at(i)) && at(i) != '>' {
			i++
		}
		endTag := strings.ToLower(s[begin+2 : i])
		for at(i) != 0 && isHTMLSpace(at(i)) {
			i++
		}
		if at(i) != '>' {
			return "", nil, fmt.Errorf("Unclosed end tag at byte offset %d", begin)
		}
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if endTag != "" && endTag != top.tag {
			return "", nil, fmt.Errorf("Unmatched end tag at byte offset %d, "+
				"expected \"</%s>\", found \"</%s>\"", begin, top.tag, endTag)
		}
		if utf16 == top.offset { // an empty entity is dropped
			continue
		}
		e := entity{offset: top.offset, length: utf16 - top.offset}
		last := func() *entity {
			n := len(entities)
			if n > 0 && entities[n-1].offset == e.offset && entities[n-1].length == e.length {
				return &entities[n-1]
			}
			return nil
		}
		switch top.tag {
		case "b", "strong":
			e.typ = models.MessageEntityTypeBold
		case "i", "em":
			e.typ = models.MessageEntityTypeItalic
		case "u", "ins":
			e.typ = models.MessageEntityTypeUnderline
		case "s", "strike", "del":
			e.typ = models.MessageEntityTypeStrikethrough
		case "tg-spoiler", "span":
			e.typ = models.MessageEntityTypeSpoiler
		case "blockquote":
			e.typ = models.MessageEntityTypeBlockquote
			if top.arg == "expandable" {
				e.typ = models.MessageEntityTypeExpandableBlockquote
			}
		case "tg-emoji":
			if id, err := strconv.ParseInt(top.arg, 10, 64); err != nil || id == 0 {
				return "", nil, errors.New("Invalid custom emoji identifier specified")
			}
			e.typ, e.arg = models.MessageEntityTypeCustomEmoji, top.arg
		case "a":
			e.typ, e.arg = models.MessageEntityTypeTextLink, top.arg
			if e.arg == "" { // <a>url</a>: the text is the link
				e.arg = out.String()[top.begin:]
			}
		case "pre": // <pre><code class="language-x">…</code></pre> is one pre entity
			if l := last(); l != nil && l.typ == models.MessageEntityTypeCode && l.arg != "" {
				l.typ = models.MessageEntityTypePre
				continue
			}
			e.typ = models.MessageEntityTypePre
		case "code":
			if l := last(); l != nil && l.typ == models.MessageEntityTypePre && top.arg != "" {
				l.arg = top.arg
				continue
			}
			e.typ, e.arg = models.MessageEntityTypeCode, top.arg
		}
		entities = append(entities, e)
	}
	if len(stack) > 0 {
		return "", nil, fmt.Errorf("Can't find end tag corresponding to start tag %s",
			stack[len(stack)-1].tag)
	}

	sort.SliceStable(entities, func(a, b int) bool {
		if entities[a].offset != entities[b].offset {
			return entities[a].offset < entities[b].offset
		}
		return entities[a].length > entities[b].length
	})
	var result []models.MessageEntity
	for _, e := range entities {
		me := models.MessageEntity{Type: e.typ, Offset: e.offset, Length: e.length}
		switch e.typ {
		case models.MessageEntityTypeTextLink:
			me.URL = e.arg
		case models.MessageEntityTypePre:
			me.Language = e.arg
		case models.MessageEntityTypeCustomEmoji:
			me.CustomEmojiID = e.arg
		}
		result = append(result, me)
	}
	return out.String(), result, nil
}

// entity is a parsed entity before it becomes a models.MessageEntity; arg is the
// link of a text_link, the language of a pre or code, the id of a custom_emoji.
type entity struct {
	typ            models.MessageEntityType
	offset, length int
	arg            string
}

var supportedTags = map[string]bool{
	"a": true, "b": true, "strong": true, "i": true, "em": true, "s": true, "strike": true,
	"del": true, "u": true, "ins": true, "tg-spoiler": true, "tg-emoji": true, "span": true,
	"pre": true, "code": true, "blockquote": true,
}

// decodeHTMLEntity decodes the entity at the start of s (which begins with '&'), as
// tdlib's decode_html_entity: &lt; &gt; &amp; &quot; and numeric ones (&#65; &#x41;),
// the ';' optional. It returns the code point and the bytes consumed, or ok false
// when s does not start with one.
func decodeHTMLEntity(s string) (code rune, n int, ok bool) {
	end := 1
	if end < len(s) && s[end] == '#' {
		end++
		base := uint64(10)
		if end < len(s) && s[end] == 'x' {
			base = 16
			end++
		}
		var v uint64
		for end < len(s) && end < 16 {
			d, isDigit := digitValue(s[end], base)
			if !isDigit {
				break
			}
			v = v*base + d
			end++
		}
		if v == 0 || v >= 0x10ffff || end >= 10 {
			return 0, 0, false
		}
		code = rune(v)
	} else {
		for end < len(s) && ('a' <= s[end] && s[end] <= 'z' || 'A' <= s[end] && s[end] <= 'Z') {
			end++
		}
		switch s[1:end] {
		case "lt":
			code = '<'
		case "gt":
			code = '>'
		case "amp":
			code = '&'
		case "quot":
			code = '"'
		default:
			return 0, 0, false
		}
	}
	if end < len(s) && s[end] == ';' {
		end++
	}
	return code, end, true
}

func digitValue(c byte, base uint64) (uint64, bool) {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0'), true
	case base == 16 && 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10, true
	case base == 16 && 'A' <= c && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

// isHTMLSpace is tdlib's is_space, NUL included (the end of its C string).
func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0 || c == '\v'
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// utf16Len is the number of UTF-16 code units of r.
func utf16Len(r rune) int {
	if r > 0xffff {
		return 2
	}
	return 1
}

// utf16Count is the length of s in UTF-16 code units, the unit of entity offsets.
func utf16Count(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Len(r)
	}
	return n
}

// textLength is the length the Bot API limits (MaxTextLength): Unicode code points.
func textLength(s string) int { return utf8.RuneCountInString(s) }
