package rulefmt

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ExpandEnv replaces ${NAME} and ${NAME:-default} references in every line of
// data, before YAML parses it, and records where each replacement is so that
// positions map back to the author's columns. It works line by line, so line
// numbers never move. Rules of the syntax (also in docs/writing-rules.md):
//   - NAME is letters, digits and _, not starting with a digit;
//   - an unset or empty variable is an error at the reference, unless the
//     reference gives a default after ":-";
//   - "$${" writes a literal "${";
//   - references inside a comment (from a "#" after a blank, outside quotes)
//     are left alone;
//   - a value that contains a line break is an error (it would move lines).
//
// also, when not empty, names another place a value can be given, for the
// hint of an unset variable ("list it under env: in the test file").
func ExpandEnv(path string, data []byte, getenv func(string) string, also string) (*Source, Errors) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	src := &Source{
		Path:     path,
		Orig:     lines,
		Expanded: make([]string, len(lines)),
		subs:     make([][]substitution, len(lines)),
	}
	var errs Errors
	for i, line := range lines {
		exp, subs, lineErrs := expandLine(line, getenv, also)
		src.Expanded[i] = exp
		src.subs[i] = subs
		for _, le := range lineErrs {
			errs = append(errs, &Error{
				File: path, Line: i + 1, Column: le.col, Severity: SeverityError,
				Message: le.msg, Hint: le.hint, Source: line,
			})
		}
	}
	return src, errs
}

type lineError struct {
	col       int
	msg, hint string
}

func expandLine(line string, getenv func(string) string, also string) (string, []substitution, []lineError) {
	if !strings.Contains(line, "$") {
		return line, nil, nil
	}
	var (
		b       strings.Builder
		subs    []substitution
		errs    []lineError
		origCol = 1 // rune column of line[i]
		expCol  = 1
		quote   rune
		prev    rune = ' '
	)
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		switch {
		case quote == 0 && r == '#' && (prev == ' ' || prev == '\t'):
			b.WriteString(line[i:]) // a comment: nothing to expand
			return b.String(), subs, errs
		case quote == 0 && (r == '"' || r == '\'') && strings.ContainsRune(" \t:[{,", prev):
			quote = r
		case quote != 0 && r == quote:
			quote = 0
		case strings.HasPrefix(line[i:], "$${"):
			b.WriteString("${")
			subs = append(subs, substitution{expCol: expCol, expLen: 2, origCol: origCol, origLen: 3})
			i += 3
			origCol += 3
			expCol += 2
			prev = '{'
			continue
		case strings.HasPrefix(line[i:], "${"):
			end := strings.IndexByte(line[i:], '}')
			if end < 0 {
				errs = append(errs, lineError{col: origCol, msg: "${ is not closed with }", hint: "write ${NAME} or ${NAME:-default}"})
				b.WriteString(line[i:])
				return b.String(), subs, errs
			}
			ref := line[i+2 : i+end]
			val, le := resolveRef(ref, getenv, also)
			if le != nil {
				le.col = origCol
				errs = append(errs, *le)
			}
			refLen := utf8.RuneCountInString(line[i : i+end+1])
			valLen := utf8.RuneCountInString(val)
			b.WriteString(val)
			subs = append(subs, substitution{expCol: expCol, expLen: valLen, origCol: origCol, origLen: refLen})
			i += end + 1
			origCol += refLen
			expCol += valLen
			prev = '}'
			continue
		}
		b.WriteRune(r)
		i += size
		origCol++
		expCol++
		prev = r
	}
	return b.String(), subs, errs
}

// resolveRef resolves the inside of one ${...}.
func resolveRef(ref string, getenv func(string) string, also string) (string, *lineError) {
	name, def, hasDef := strings.Cut(ref, ":-")
	if !ValidEnvName(name) {
		return "", &lineError{
			msg:  fmt.Sprintf("${%s} is not a valid environment variable reference", ref),
			hint: "names are letters, digits and _ (for example ${TSLA_SIZE}); write $${ for a literal ${",
		}
	}
	val := ""
	if getenv != nil {
		val = getenv(name)
	}
	if val == "" {
		if !hasDef {
			return "", &lineError{
				msg:  fmt.Sprintf("environment variable %s is not set", name),
				hint: unsetHint(name, also),
			}
		}
		val = def
	}
	if strings.ContainsAny(val, "\n\r") {
		return "", &lineError{msg: fmt.Sprintf("environment variable %s contains a line break, which a rule file cannot take", name)}
	}
	return val, nil
}

// ValidEnvName reports whether s can be referenced as ${s} in a rule file:
// letters, digits and _, not starting with a digit.
func ValidEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// unsetHint says how to give an unset variable a value: in the environment
// of the command (every command reads it), in also when there is another
// place, or as a default in the reference.
func unsetHint(name, also string) string {
	if also != "" {
		also += ", "
	}
	return fmt.Sprintf("export %s=VALUE before running the command, %sor give a default: ${%s:-value}", name, also, name)
}
