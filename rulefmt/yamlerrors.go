package rulefmt

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// This file turns YAML syntax errors into findings a non-programmer can act
// on. yaml.v3 reports only a line, and for indentation mistakes often the
// line where the enclosing block began; the first line at which a prefix of
// the file stops parsing is where the mistake is, so that is what we report.

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// maxPrefixScan bounds the prefix search (each step parses the prefix), and
// maxPrefixBytes the size of a file it is tried on.
const (
	maxPrefixScan  = 200
	maxPrefixBytes = 64 << 10
)

// TabErrors reports every tab in a line's indentation: YAML forbids them and
// they are invisible in most editors, so each one is named.
func TabErrors(src *Source) Errors {
	var errs Errors
	for i, line := range src.Expanded {
		for j, r := range []rune(line) {
			if r == '\t' {
				errs = append(errs, src.ErrorAt(Pos{i + 1, j + 1}, SeverityError,
					"a tab is used for indentation; YAML needs spaces",
					"replace the tab with spaces (most editors have \"convert indentation to spaces\")"))
				break
			}
			if r != ' ' {
				break
			}
		}
	}
	return errs
}

// SyntaxError explains err, a yaml.v3 parse error of src.
func SyntaxError(src *Source, err error) *Error {
	raw := err.Error()
	msg := strings.TrimPrefix(raw, "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(raw); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if line < 1 || line > len(src.Expanded) {
		line = 1
	}
	if e := quoteInsideQuote(src, line); e != nil {
		return e
	}
	structural := strings.Contains(msg, "did not find expected") && !strings.Contains(msg, "',' or")
	structural = structural || strings.Contains(msg, "mapping values are not allowed") ||
		strings.Contains(msg, "could not find expected ':'") ||
		strings.Contains(msg, "cannot start any token")
	if structural {
		if k := firstFailingPrefix(src.Expanded, line); k > 0 {
			line = k
		}
	}
	text := []rune(src.Expanded[line-1])
	col := firstNonBlank(text)
	switch {
	case strings.Contains(msg, "cannot start any token"):
		if c := badTokenColumn(text); c > 0 {
			col = c
			return src.ErrorAt(Pos{line, col}, SeverityError,
				"a value cannot start with "+strconv.QuoteRune(text[c-1]),
				"put the value in quotes")
		}
	case strings.Contains(msg, "mapping values are not allowed"):
		if c := secondColon(text); c > 0 {
			return src.ErrorAt(Pos{line, c}, SeverityError,
				"a second \": \" on this line",
				"put a value that contains \": \" in quotes, or check the indentation of this line")
		}
		return src.ErrorAt(Pos{line, col}, SeverityError,
			"this line's indentation does not fit the lines above",
			"keys of one rule start in the same column; indent with spaces only")
	case strings.Contains(msg, "could not find expected ':'"):
		if c := colonWithoutSpace(text); c > 0 {
			return src.ErrorAt(Pos{line, c + 1}, SeverityError,
				"a space is missing after \":\"",
				"write key: value with a space after the colon")
		}
		return src.ErrorAt(Pos{line, col}, SeverityError,
			"this line is not \"key: value\" and not a list item",
			"check the indentation and that the key ends with \": \"")
	case structural:
		return src.ErrorAt(Pos{line, col}, SeverityError,
			"this line's indentation does not fit the lines above",
			"list items (\"- \") of one list and keys of one mapping start in the same column; indent with spaces only")
	case strings.Contains(msg, "found unexpected end of stream"):
		if l, c := unclosed(src.Expanded, '"', '"'); l > 0 {
			line, col = l, c
		} else if l, c := unclosed(src.Expanded, '\'', '\''); l > 0 {
			line, col = l, c
		}
		return src.ErrorAt(Pos{line, col}, SeverityError,
			"a quote opened here is never closed", "end the text with the same quote it starts with")
	case strings.Contains(msg, "',' or ']'"):
		if l, c := unclosed(src.Expanded, '[', ']'); l > 0 {
			line, col = l, c
		}
		return src.ErrorAt(Pos{line, col}, SeverityError,
			"a list written with [ is not closed with ]", "")
	case strings.Contains(msg, "',' or '}'"):
		if l, c := unclosed(src.Expanded, '{', '}'); l > 0 {
			line, col = l, c
		}
		return src.ErrorAt(Pos{line, col}, SeverityError,
			"a mapping written with { is not closed with }", "")
	case strings.Contains(msg, "unknown anchor"):
		return src.ErrorAt(Pos{line, col}, SeverityError, msg, "")
	}
	return src.ErrorAt(Pos{line, col}, SeverityError, "the file is not valid YAML: "+msg, "")
}

// firstFailingPrefix returns the first line k >= from such that the file's
// first k lines do not parse, or 0.
func firstFailingPrefix(lines []string, from int) int {
	if from < 1 {
		from = 1
	}
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	if size > maxPrefixBytes {
		return 0
	}
	for k := from; k <= len(lines) && k < from+maxPrefixScan; k++ {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(strings.Join(lines[:k], "\n")), &n); err != nil {
			return k
		}
	}
	return 0
}

func firstNonBlank(text []rune) int {
	for i, r := range text {
		if r != ' ' && r != '\t' {
			return i + 1
		}
	}
	return 1
}

// badTokenColumn finds a value starting with a character YAML reserves.
func badTokenColumn(text []rune) int {
	for i, r := range text {
		if (r == '@' || r == '`' || r == '%') && (i == 0 || text[i-1] == ' ') {
			return i + 1
		}
	}
	return 0
}

// secondColon finds the second ": " of a line (outside quotes).
func secondColon(text []rune) int {
	seen := 0
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '"' || text[i] == '\'' {
			return 0
		}
		if text[i] == ':' && text[i+1] == ' ' {
			seen++
			if seen == 2 {
				return i + 1
			}
		}
	}
	return 0
}

// colonWithoutSpace finds "key:value" at the start of a line.
func colonWithoutSpace(text []rune) int {
	start := firstNonBlank(text) - 1
	if start+1 < len(text) && text[start] == '-' && text[start+1] == ' ' {
		start += 2
	}
	for i := start; i+1 < len(text); i++ {
		switch {
		case text[i] == ' ':
			return 0
		case text[i] == ':' && text[i+1] != ' ':
			return i + 1
		}
	}
	return 0
}

// unclosed finds the first line where open is not matched by close on the
// same line (flow collections and quoted values are one line in rule files)
// and returns it with the column of the unmatched opener.
func unclosed(lines []string, open, close rune) (int, int) {
	for i, line := range lines {
		text := []rune(line)
		depth, at := 0, 0
		for j, r := range text {
			if r == '#' && (j == 0 || text[j-1] == ' ') && depth == 0 {
				break
			}
			switch {
			case open == close && r == open:
				if depth == 0 && (j == 0 || strings.ContainsRune(" :[{,", text[j-1])) {
					depth, at = 1, j+1
				} else if depth == 1 {
					depth = 0
				}
			case r == open:
				if depth == 0 {
					at = j + 1
				}
				depth++
			case r == close && depth > 0:
				depth--
			}
		}
		if depth > 0 {
			return i + 1, at
		}
	}
	return 0, 0
}

// quoteInsideQuote finds, on the lines up to one after upTo, a value in
// quotes that a quote of the same kind inside it ends early (message:
// "closed "TSLA" now"): YAML then reports a confusing structure error on a
// later line. It returns the finding at the inner quote, with the line
// corrected, or nil.
func quoteInsideQuote(src *Source, upTo int) *Error {
	for i := 0; i < len(src.Expanded) && i <= upTo; i++ {
		text := []rune(strings.TrimRight(src.Expanded[i], "\r"))
		for j := 0; j < len(text); j++ {
			q := text[j]
			if q != '"' && q != '\'' {
				continue
			}
			if !valueStart(text, j) {
				continue
			}
			end := closingQuote(text, j)
			if end < 0 {
				break
			}
			after := end + 1
			for after < len(text) && text[after] == ' ' {
				after++
			}
			if after == len(text) || strings.ContainsRune(",}]#", text[after]) && (text[after] != '#' || after > end+1) {
				j = end
				continue
			}
			// The value runs on after its closing quote: that quote was
			// meant inside the text.
			last := len(text) - 1
			for last > after && text[last] == ' ' {
				last--
			}
			closeAt := last
			for closeAt > end && text[closeAt] != q {
				closeAt--
			}
			if closeAt == end {
				return nil
			}
			inner := string(text[j+1 : closeAt])
			var fixed, how string
			if q == '"' {
				if !strings.ContainsRune(inner, '\'') {
					fixed = "'" + inner + "'"
					how = "put the text in single quotes"
				} else {
					fixed = "\"" + strings.ReplaceAll(inner, "\"", "\\\"") + "\""
					how = "write \\\" for a quote inside the text"
				}
			} else if !strings.ContainsRune(inner, '"') {
				fixed = "\"" + inner + "\""
				how = "put the text in double quotes"
			} else {
				fixed = "'" + strings.ReplaceAll(inner, "'", "''") + "'"
				how = "write '' for a quote inside single quotes"
			}
			line := string(text[:j]) + fixed + string(text[closeAt+1:])
			return src.ErrorAt(Pos{i + 1, end + 1}, SeverityError,
				fmt.Sprintf("this %c ends the text early: a quote inside a text in quotes must be written differently", q),
				"did you mean: "+strings.TrimSpace(line)+"? ("+how+")")
		}
	}
	return nil
}

// valueStart reports whether the quote at j starts a YAML value: after
// "key: ", "- ", "[", "{" or ", ".
func valueStart(text []rune, j int) bool {
	k := j - 1
	for k >= 0 && text[k] == ' ' {
		k--
	}
	if k < 0 {
		return true
	}
	switch text[k] {
	case ':', '[', '{', ',':
		return k < j-1 || text[k] != ':'
	case '-':
		return k < j-1 && (k == 0 || text[k-1] == ' ')
	}
	return false
}

// closingQuote returns the index of the quote that closes the one at j, or -1.
func closingQuote(text []rune, j int) int {
	q := text[j]
	for k := j + 1; k < len(text); k++ {
		switch {
		case q == '"' && text[k] == '\\':
			k++
		case q == '\'' && text[k] == '\'' && k+1 < len(text) && text[k+1] == '\'':
			k++
		case text[k] == q:
			return k
		}
	}
	return -1
}
