package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// This file recognises the ways traders write formulas in spreadsheets,
// word processors and chat messages (<>, =AND(...), -3%, 0,5, 15:50,
// unquoted tickers, curly quotes, AND) on the source text, without changing
// expr's parser. Each habit found becomes edits of the source; when a
// formula does not compile, the compiler applies every edit and, when the
// result compiles, shows it as the corrected formula.

// habitToken is one lexical piece of a formula as the habit scan sees it.
// Offsets are runes.
type habitToken struct {
	kind     habitTokenKind
	text     string
	from, to int
}

type habitTokenKind uint8

const (
	tokSpace habitTokenKind = iota + 1
	tokIdent
	tokNumber
	tokString      // "..." '...' `...`
	tokCurlyString // “...” or ‘...’ pasted from a word processor
	tokOp          // operators and punctuation
)

// twoRuneOps are the operators the scan keeps whole.
var twoRuneOps = []string{"==", "!=", "<=", ">=", "&&", "||", "<>", "=<", "=>", "??", "?.", ".."}

// curlyQuotes maps an opening curly quote to the ones that may close it.
var curlyQuotes = map[rune]string{'“': "”“\"", '”': "”“\"", '„': "“”\"", '‘': "’‘'", '’': "’‘'", '«': "»", '»': "«"}

// habitTokens splits src into tokens. It never fails: what it does not know
// becomes a one-rune operator.
func habitTokens(src string) []habitToken {
	rs := []rune(src)
	var out []habitToken
	for i := 0; i < len(rs); {
		start := i
		r := rs[i]
		kind := tokOp
		switch {
		case unicode.IsSpace(r):
			for i < len(rs) && unicode.IsSpace(rs[i]) {
				i++
			}
			kind = tokSpace
		case r == '"' || r == '\'' || r == '`':
			i++
			for i < len(rs) && rs[i] != r {
				if rs[i] == '\\' && r != '`' {
					i++
				}
				i++
			}
			i = min(i+1, len(rs))
			kind = tokString
		case curlyQuotes[r] != "":
			closers := curlyQuotes[r]
			j := i + 1
			for j < len(rs) && !strings.ContainsRune(closers, rs[j]) && rs[j] != '\n' {
				j++
			}
			if j < len(rs) && strings.ContainsRune(closers, rs[j]) {
				i = j + 1
				kind = tokCurlyString
			} else {
				i++
			}
		case r == '_' || r == '$' || unicode.IsLetter(r):
			for i < len(rs) && (rs[i] == '_' || rs[i] == '$' || unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])) {
				i++
			}
			kind = tokIdent
		case unicode.IsDigit(r):
			for i < len(rs) && unicode.IsDigit(rs[i]) {
				i++
			}
			if i+1 < len(rs) && rs[i] == '.' && unicode.IsDigit(rs[i+1]) {
				i++
				for i < len(rs) && unicode.IsDigit(rs[i]) {
					i++
				}
			}
			kind = tokNumber
		default:
			i++
			if i < len(rs) {
				for _, op := range twoRuneOps {
					if string(rs[start:i+1]) == op {
						i++
						break
					}
				}
			}
			if i < len(rs) && rs[i] == '=' && (string(rs[start:i]) == "==" || string(rs[start:i]) == "!=") {
				i++ // === and !== of JavaScript
			}
		}
		out = append(out, habitToken{kind: kind, text: string(rs[start:i]), from: start, to: i})
	}
	return out
}

// habitEdit replaces the runes [from, to) of a formula with with.
type habitEdit struct {
	from, to int
	with     string
}

// habitSpot is one habit found in a formula: where, what it is in plain
// words, the local correction, and the edits that make it.
type habitSpot struct {
	from  int
	msg   string
	local string // the correction of this spot alone: "write != instead of <>"
	edits []habitEdit
}

// habitScan holds the tokens of one formula and what the compiler knows
// about names.
type habitScan struct {
	c    *Compiler
	toks []habitToken
	// sig are the indexes of the tokens that are not spaces.
	sig   []int
	lets  map[string]bool
	spots []habitSpot
	// taken marks runes already covered by an edit, so that two habits
	// never edit the same text.
	taken map[int]bool
}

// findHabits returns the habits in src, in source order.
func (c *Compiler) findHabits(src string) []habitSpot {
	s := &habitScan{c: c, toks: habitTokens(src), lets: map[string]bool{}, taken: map[int]bool{}}
	for i, t := range s.toks {
		if t.kind != tokSpace {
			s.sig = append(s.sig, i)
		}
	}
	for k, i := range s.sig {
		if s.toks[i].text == "let" && k+1 < len(s.sig) {
			s.lets[s.toks[s.sig[k+1]].text] = true
		}
	}
	for k := range s.sig {
		s.scanAt(k)
	}
	sort.SliceStable(s.spots, func(a, b int) bool { return s.spots[a].from < s.spots[b].from })
	return s.spots
}

// tok returns the k-th significant token, or an empty one out of range.
func (s *habitScan) tok(k int) habitToken {
	if k < 0 || k >= len(s.sig) {
		return habitToken{from: -1, to: -1}
	}
	return s.toks[s.sig[k]]
}

// adjacent reports whether significant tokens k and k+1 touch (no blank).
func (s *habitScan) adjacent(k int) bool {
	a, b := s.tok(k), s.tok(k+1)
	return a.from >= 0 && b.from >= 0 && a.to == b.from
}

// add records a spot unless one of its edits overlaps an earlier spot's.
func (s *habitScan) add(from int, msg, local string, edits ...habitEdit) {
	for _, e := range edits {
		for i := e.from; i < max(e.to, e.from+1); i++ {
			if s.taken[i] {
				return
			}
		}
	}
	for _, e := range edits {
		for i := e.from; i < max(e.to, e.from+1); i++ {
			s.taken[i] = true
		}
	}
	s.spots = append(s.spots, habitSpot{from: from, msg: msg, local: local, edits: edits})
}

func replaceTok(t habitToken, with string) habitEdit { return habitEdit{t.from, t.to, with} }

// operatorHabits are single tokens with the rules' spelling.
var operatorHabits = map[string]struct{ with, why string }{
	"<>":  {"!=", "<> is how spreadsheets write \"not equal\"; rules write !="},
	"=<":  {"<=", "=< is written <= in rules"},
	"=>":  {">=", "=> is written >= in rules"},
	"≥":   {">=", "≥ is written >= in rules"},
	"≤":   {"<=", "≤ is written <= in rules"},
	"≠":   {"!=", "≠ is written != in rules"},
	"×":   {"*", "× is written * in rules"},
	"÷":   {"/", "÷ is written / in rules"},
	"–":   {"-", "– is a dash from a word processor; a minus sign is -"},
	"—":   {"-", "— is a dash from a word processor; a minus sign is -"},
	"−":   {"-", "− is a typographic minus; type the plain minus sign -"},
	"===": {"==", "=== is written == in rules"},
	"!==": {"!=", "!== is written != in rules"},
	"&":   {"&&", "& alone is not an operator; write && (and)"},
	"|":   {"||", "| alone is not an operator; write || (or)"},
}

// wordOperators are and/or/not written as words in capitals, as
// spreadsheets and chat messages do (expr knows only and, or, not).
var wordOperators = map[string]string{"AND": "&&", "And": "&&", "OR": "||", "Or": "||", "NOT": "!", "Not": "!"}

// spreadsheetConstants are TRUE and FALSE as spreadsheets write them.
var spreadsheetConstants = map[string]string{"TRUE": "true", "True": "true", "FALSE": "false", "False": "false"}

func (s *habitScan) scanAt(k int) {
	t := s.tok(k)
	switch t.kind {
	case tokOp:
		s.operator(k, t)
	case tokCurlyString:
		inner := []rune(t.text)
		inner = inner[1 : len(inner)-1]
		s.add(t.from, fmt.Sprintf("%s is a curly quote from a word processor; rules use straight quotes \"", string([]rune(t.text)[0])),
			"write \""+string(inner)+"\"", replaceTok(t, strconv.Quote(string(inner))))
	case tokString:
		s.orValue(k, t)
	case tokIdent:
		s.identifier(k, t)
	case tokNumber:
		s.number(k, t)
	}
}

func (s *habitScan) operator(k int, t habitToken) {
	if h, ok := operatorHabits[t.text]; ok {
		s.add(t.from, h.why, "write "+h.with+" instead of "+t.text, replaceTok(t, h.with))
		return
	}
	switch {
	case t.text == "=" && k == 0:
		if f := s.tok(1); f.kind == tokIdent && s.tok(2).text == "(" {
			switch strings.ToUpper(f.text) {
			case "AND", "OR", "NOT", "IF":
				return // =AND(...): the function's rewrite drops the =
			}
		}
		if next := s.tok(1); next.from > 0 {
			s.add(t.from, "a formula is not led by = here", "remove the =", habitEdit{t.from, next.from, ""})
		}
	case t.text == "=":
		if prev := s.tok(k - 2); prev.text == "let" {
			return // let x = ...
		}
		s.add(t.from, "= sets a value; to compare, write ==", "write == instead of =", replaceTok(t, "=="))
	case curlyQuotes[[]rune(t.text)[0]] != "":
		s.add(t.from, t.text+" is a curly quote from a word processor; rules use straight quotes \"", "write \" instead of "+t.text, replaceTok(t, "\""))
	}
}

func (s *habitScan) identifier(k int, t habitToken) {
	next := s.tok(k + 1)
	if prev := s.tok(k - 1); prev.text == "." || prev.text == "?." {
		return // a field name
	}
	if next.text == "(" {
		if s.spreadsheetFunction(k, t) || s.priceFunction(k, t) || s.renamedFunction(t) || s.extremeFunction(t) {
			return
		}
		lower := strings.ToLower(t.text)
		if lower != t.text && s.isFunction(lower) {
			s.add(t.from, fmt.Sprintf("function names are written in lower case: %s", lower), "write "+lower, replaceTok(t, lower))
		}
		return
	}
	if with, ok := wordOperators[t.text]; ok {
		if with == "||" && next.kind == tokString && s.tok(k-1).kind == tokString && s.tok(k-2).text == "==" {
			return // x == "a" OR "b": orValue rewrites it whole
		}
		e := replaceTok(t, with)
		if with == "!" && s.tok(k+1).from == t.to+1 {
			e.to++ // NOT x -> !x
		}
		s.add(t.from, fmt.Sprintf("%s is written %s in rules (or %s, in lower case)", t.text, with, strings.ToLower(t.text)), "write "+with, e)
		return
	}
	if with, ok := spreadsheetConstants[t.text]; ok {
		s.add(t.from, fmt.Sprintf("%s is written %s in rules", t.text, with), "write "+with, replaceTok(t, with))
		return
	}
	if strings.HasPrefix(t.text, "$") {
		if n := strings.TrimLeft(t.text, "$"); n != "" && strings.Trim(n, "0123456789") == "" {
			e := replaceTok(t, n)
			if next.text == "." && s.adjacent(k) && s.tok(k+2).kind == tokNumber && s.adjacent(k+1) {
				n += "." + s.tok(k+2).text // $250.50: the tokens split at the point
				e = habitEdit{t.from, s.tok(k + 2).to, n}
			}
			s.add(t.from, "$ is not part of a number in rules", "write "+n, e)
		}
		return
	}
	if s.known(t.text) {
		return
	}
	// An unknown word where a text belongs: a ticker, a session, a side.
	if next.text == "." && s.c.opts.Catalog != nil {
		if _, ok := s.c.opts.Catalog.StockPair(t.text); ok && s.tok(k+2).kind == tokIdent {
			with := fmt.Sprintf("stock(%q)", t.text)
			s.add(t.from, fmt.Sprintf("%s alone is not a variable: a stock pair is read with stock(%q)", t.text, t.text), "write "+with, replaceTok(t, with))
		}
		return
	}
	if s.textPlace(k) && s.c.suggestName(t.text, s.lets) == "" {
		// A word close to a variable's name is a typo, reported as such.
		s.add(t.from, fmt.Sprintf("%s is not a variable: a value such as a ticker, a session or a side is text, written in double quotes", t.text),
			fmt.Sprintf("write %q", t.text), replaceTok(t, strconv.Quote(t.text)))
	}
}

// known reports whether name means something in a formula.
func (s *habitScan) known(name string) bool {
	c := s.c
	switch name {
	case "true", "false", "nil", "and", "or", "not", "in", "matches", "contains", "startsWith", "endsWith", "let", "if", "else", "symbol", "$env":
		return true
	}
	return s.lets[name] || c.plainVars[name] || c.byVariable[name] != nil || c.byName[name] != nil || c.builtins[name]
}

func (s *habitScan) isFunction(name string) bool {
	return s.c.byName[name] != nil || s.c.builtins[name]
}

// textPlace reports whether the word at k stands where a text is expected:
// an argument of a helper (stock(TSLA)), a side of == or != (session ==
// regular) or an item of a list after in.
func (s *habitScan) textPlace(k int) bool {
	prev, next := s.tok(k-1), s.tok(k+1)
	if prev.text == "==" || prev.text == "!=" || next.text == "==" || next.text == "!=" {
		return true
	}
	if (prev.text == "(" || prev.text == ",") && (next.text == ")" || next.text == ",") {
		// Find the call this argument belongs to.
		depth := 0
		for j := k - 1; j >= 0; j-- {
			switch s.tok(j).text {
			case ")", "]":
				depth++
			case "[":
				if depth == 0 {
					return s.tok(j-1).text == "in"
				}
				depth--
			case "(":
				if depth == 0 {
					f := s.c.byName[s.tok(j-1).text]
					return f != nil && len(f.args) > 0 && f.args[0] != argNumber
				}
				depth--
			}
		}
	}
	if (prev.text == "[" || prev.text == ",") && (next.text == "]" || next.text == ",") {
		for j := k - 1; j >= 0; j-- {
			if s.tok(j).text == "[" {
				return s.tok(j-1).text == "in"
			}
			if s.tok(j).text == "(" || s.tok(j).text == ")" {
				return false
			}
		}
	}
	return false
}

// closing returns the index of the significant token that closes the
// parenthesis at k, and the indexes of the commas at its own depth.
func (s *habitScan) closing(k int) (int, []int) {
	depth := 0
	var commas []int
	for j := k; j < len(s.sig); j++ {
		switch s.tok(j).text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return j, commas
			}
		case ",":
			if depth == 1 {
				commas = append(commas, j)
			}
		}
	}
	return -1, nil
}

// spreadsheetFunction rewrites AND(a, b), OR(a, b), NOT(a) and IF(a, b, c).
func (s *habitScan) spreadsheetFunction(k int, t habitToken) bool {
	name := strings.ToUpper(t.text)
	if t.text == "not" || t.text == "if" {
		return false // expr's own not(...) and if
	}
	switch name {
	case "AND", "OR", "NOT", "IF":
	default:
		return false
	}
	open := k + 1
	end, commas := s.closing(open)
	if end < 0 {
		return false
	}
	whole := k == 0 || (k == 1 && s.tok(0).text == "=")
	whole = whole && end == len(s.sig)-1
	var edits []habitEdit
	if k == 1 && s.tok(0).text == "=" && whole {
		edits = append(edits, replaceTok(s.tok(0), ""))
	}
	lead, tail := "(", ")"
	if whole {
		lead, tail = "", ""
	}
	head := habitEdit{t.from, s.tok(open).to, lead}
	// Spaces after "(" and before ")" go with the parentheses.
	if first := s.tok(open + 1); first.from >= 0 {
		head.to = first.from
	}
	closeTok := s.tok(end)
	closeEdit := habitEdit{s.tok(end - 1).to, closeTok.to, tail}
	var msg, local string
	switch name {
	case "AND", "OR":
		if len(commas) == 0 {
			return false
		}
		op := " &&"
		if name == "OR" {
			op = " ||"
		}
		edits = append(edits, head)
		for _, c := range commas {
			edits = append(edits, replaceTok(s.tok(c), op))
		}
		edits = append(edits, closeEdit)
		msg = fmt.Sprintf("%s(...) is a spreadsheet function; rules join conditions with%s", t.text, op)
		local = fmt.Sprintf("write the conditions joined by%s", op)
	case "NOT":
		if len(commas) != 0 {
			return false
		}
		head.with = "!("
		closeEdit.with = ")"
		edits = append(edits, head, closeEdit)
		msg = fmt.Sprintf("%s(...) is a spreadsheet function; rules write ! (not)", t.text)
		local = "write !( ... )"
	case "IF":
		if len(commas) != 2 {
			return false
		}
		a, b := s.between(commas[0], commas[1]), s.between(commas[1], end)
		if a == "true" && b == "false" {
			// IF(test, true, false) is the test itself.
			edits = append(edits, head, habitEdit{s.tok(commas[0]).from, closeTok.to, tail})
		} else {
			edits = append(edits, head, habitEdit{s.tok(commas[0]).from, s.tok(commas[0]).to, " ?"},
				habitEdit{s.tok(commas[1]).from, s.tok(commas[1]).to, " :"}, closeEdit)
		}
		msg = fmt.Sprintf("%s(test, a, b) is a spreadsheet function; rules write test ? a : b", t.text)
		local = "write test ? a : b"
	}
	s.add(t.from, msg, local, edits...)
	return true
}

// between returns the text of the significant tokens strictly between the
// significant tokens a and b, trimmed.
func (s *habitScan) between(a, b int) string {
	var sb strings.Builder
	for j := a + 1; j < b; j++ {
		sb.WriteString(s.tok(j).text)
	}
	return strings.TrimSpace(sb.String())
}

// depthAt returns how many brackets are open before the significant token k.
func (s *habitScan) depthAt(k int) int {
	d := 0
	for j := 0; j < k; j++ {
		switch s.tok(j).text {
		case "(", "[", "{":
			d++
		case ")", "]", "}":
			d--
		}
	}
	return d
}

func (s *habitScan) number(k int, t habitToken) {
	next := s.tok(k + 1)
	switch {
	case next.text == "%" && s.adjacent(k):
		after := s.tok(k + 2)
		if after.kind == tokNumber || after.kind == tokIdent && !s.isOperatorWord(after.text) || after.text == "(" {
			return // x%2 is the remainder
		}
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return
		}
		with := formatRatio(v / 100)
		why := fmt.Sprintf("%s%% is not a number in rules: percentages are written as ratios, %s%% is %s", t.text, t.text, with)
		if s.comparedWithBps(k) {
			with = formatRatio(v * 100)
			why = fmt.Sprintf("%s%% is not a number in rules; this value is in basis points, and %s%% is %s bps", t.text, t.text, with)
		}
		s.add(t.from, why, "write "+with, habitEdit{t.from, next.to, with})
	case next.text == "," && s.adjacent(k) && s.tok(k+2).kind == tokNumber && s.adjacent(k+1) && s.depthAt(k) == 0:
		s.decimalComma(k, t)
	case next.text == ":" && s.adjacent(k) && s.tok(k+2).kind == tokNumber && s.adjacent(k+1):
		s.clockTime(k, t)
	case next.text == "-" && s.adjacent(k) && len(t.text) == 4 && s.tok(k+2).kind == tokNumber && s.adjacent(k+1) &&
		s.tok(k+3).text == "-" && s.adjacent(k+2) && s.tok(k+4).kind == tokNumber && s.adjacent(k+3):
		s.date(k, t)
	}
}

func (s *habitScan) isOperatorWord(w string) bool {
	switch w {
	case "and", "or", "in", "not", "matches", "contains", "startsWith", "endsWith", "AND", "OR":
		return true
	}
	return false
}

// comparedWithBps reports whether the number at k is compared with a value
// in basis points (spread_bps < 0.1%).
func (s *habitScan) comparedWithBps(k int) bool {
	op := s.tok(k - 1)
	if op.text == "-" {
		op = s.tok(k - 2)
		k--
	}
	switch op.text {
	case "<", "<=", ">", ">=", "==", "!=":
	default:
		return false
	}
	return strings.HasSuffix(s.tok(k-2).text, "_bps")
}

// decimalComma rewrites 0,5 to 0.5 and 1,250.50 to 1250.50.
func (s *habitScan) decimalComma(k int, t habitToken) {
	// Collect number , number , number ... with no blanks.
	parts := []habitToken{t}
	j := k
	for s.tok(j+1).text == "," && s.adjacent(j) && s.tok(j+2).kind == tokNumber && s.adjacent(j+1) {
		parts = append(parts, s.tok(j+2))
		j += 2
	}
	last := parts[len(parts)-1]
	var text strings.Builder
	for i, p := range parts {
		if i > 0 {
			text.WriteString(",")
		}
		text.WriteString(p.text)
	}
	groups := true
	for _, p := range parts[1:] {
		digits := strings.SplitN(p.text, ".", 2)[0]
		if len(digits) != 3 {
			groups = false
		}
	}
	multiplier := s.tok(k-1).text == "*" || s.tok(k-1).text == "/" || s.tok(j+1).text == "*" || s.tok(j+1).text == "/"
	thousands := groups && !strings.HasPrefix(t.text, "0") && len(t.text) <= 3 &&
		(len(parts) > 2 || strings.Contains(last.text, ".") || !multiplier)
	var with, why string
	if european := strings.Count(t.text, ".") == 1 && len(parts) == 2 && !strings.Contains(last.text, "."); european {
		// 1.000,50: a point between thousands and a decimal comma.
		int, frac, _ := strings.Cut(t.text, ".")
		if len(frac) != 3 || strings.HasPrefix(int, "0") {
			return
		}
		with = int + frac + "." + last.text
		why = fmt.Sprintf("%s is written the European way; rules write %s (no thousands separator, a decimal point)", text.String(), with)
		s.add(t.from, why, "write "+with, habitEdit{t.from, last.to, with})
		return
	}
	if thousands {
		with = strings.ReplaceAll(text.String(), ",", "")
		why = fmt.Sprintf("%s has a thousands separator; rules write %s", text.String(), with)
	} else {
		if len(parts) != 2 || strings.Contains(last.text, ".") {
			return
		}
		with = t.text + "." + last.text
		why = fmt.Sprintf("%s uses a decimal comma; rules write %s with a point", text.String(), with)
	}
	s.add(t.from, why, "write "+with, habitEdit{t.from, last.to, with})
}

// clockTime rewrites a time of day written bare (15:50).
func (s *habitScan) clockTime(k int, t habitToken) {
	m := s.tok(k + 2)
	h, err1 := strconv.Atoi(t.text)
	mm, err2 := strconv.Atoi(m.text)
	if err1 != nil || err2 != nil || h > 23 || mm > 59 || len(m.text) != 2 || len(t.text) > 2 {
		return
	}
	for j := 0; j < k; j++ {
		if s.tok(j).text == "?" {
			return // a ? b:c
		}
	}
	clock := fmt.Sprintf("%02d:%02d", h, mm)
	why := fmt.Sprintf("%s is a time of day; in rules a time is text in quotes, \"%s\"", t.text+":"+m.text, clock)
	quoted := habitEdit{t.from, m.to, strconv.Quote(clock)}
	if s.tok(k-1).text == "(" || s.tok(k-1).text == "," {
		s.add(t.from, why, "write "+quoted.with, quoted)
		return
	}
	if now, ok := s.comparedWithNow(k); ok {
		s.add(t.from, why+", compared with now.Format(\"15:04\") (the Eastern clock)", "write now.Format(\"15:04\") and "+quoted.with,
			replaceTok(now, `now.Format("15:04")`), quoted)
		return
	}
	s.add(t.from, why, "write "+quoted.with+", e.g. minutes_until("+quoted.with+")")
}

// date rewrites a date written bare (2026-03-09), which expr reads as a
// subtraction.
func (s *habitScan) date(k int, t habitToken) {
	mo, d := s.tok(k+2), s.tok(k+4)
	if len(mo.text) != 2 || len(d.text) != 2 {
		return
	}
	date := t.text + "-" + mo.text + "-" + d.text
	why := fmt.Sprintf("%s is read as a subtraction; in rules a date is text in quotes, \"%s\"", date, date)
	quoted := habitEdit{t.from, d.to, strconv.Quote(date)}
	if now, ok := s.comparedWithNow(k); ok {
		s.add(t.from, why+", compared with now.Format(\"2006-01-02\") (the Eastern date)", "write now.Format(\"2006-01-02\") and "+quoted.with,
			replaceTok(now, `now.Format("2006-01-02")`), quoted)
		return
	}
	s.add(t.from, why, "write "+quoted.with)
}

// comparedWithNow finds the now on the other side of the comparison whose
// right-hand side starts at k.
func (s *habitScan) comparedWithNow(k int) (habitToken, bool) {
	switch s.tok(k - 1).text {
	case "<", "<=", ">", ">=", "==", "!=", "=", "<>", "=<", "=>":
	default:
		return habitToken{}, false
	}
	if now := s.tok(k - 2); now.text == "now" && s.tok(k-3).text != "." {
		return now, true
	}
	// now.Hour() == 9:30: the whole now.Hour() is replaced.
	if s.tok(k-2).text == ")" && s.tok(k-3).text == "(" && s.tok(k-4).text == "Hour" && s.tok(k-5).text == "." && s.tok(k-6).text == "now" {
		return habitToken{kind: tokIdent, text: "now.Hour()", from: s.tok(k - 6).from, to: s.tok(k - 2).to}, true
	}
	return habitToken{}, false
}

// applyHabitEdits returns src with the edits applied.
func applyHabitEdits(src string, spots []habitSpot) (string, []habitEdit) {
	var edits []habitEdit
	for _, sp := range spots {
		edits = append(edits, sp.edits...)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
	rs := []rune(src)
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.from < at || e.to > len(rs) {
			continue
		}
		b.WriteString(string(rs[at:e.from]))
		b.WriteString(e.with)
		at = e.to
	}
	b.WriteString(string(rs[at:]))
	return b.String(), edits
}

// originalOffset maps a rune offset of the edited text back to src.
func originalOffset(edits []habitEdit, off int) int {
	delta := 0
	for _, e := range edits {
		start := e.from + delta
		n := len([]rune(e.with))
		if off < start {
			break
		}
		if off < start+n {
			return e.from
		}
		delta += n - (e.to - e.from)
	}
	return off - delta
}

// orValue rewrites x == "a" or "b", as said aloud, to x == "a" || x == "b".
func (s *habitScan) orValue(k int, t habitToken) {
	or := s.tok(k - 1)
	switch or.text {
	case "||", "or", "OR", "Or":
	default:
		return
	}
	if s.tok(k-2).kind != tokString || s.tok(k-3).text != "==" {
		return
	}
	switch s.tok(k + 1).text {
	case "", ")", "&&", "and", "||", "or", "OR", "Or", "AND", "And":
	default:
		return
	}
	start := s.subjectStart(k - 4)
	if start < 0 {
		return
	}
	subject := strings.TrimSpace(s.text(start, k-4))
	e := []habitEdit{replaceTok(t, subject+" == "+t.text)}
	if or.text != "||" && or.text != "or" {
		e = append([]habitEdit{replaceTok(or, "||")}, e...)
	}
	s.add(t.from, fmt.Sprintf("%s %s compares nothing: each value needs its own comparison, %s == %s", or.text, t.text, subject, t.text),
		fmt.Sprintf("write %s == %s", subject, t.text), e...)
}

// subjectStart returns the first significant token of the value that ends
// at token end (market.session, stock("TSLA").name), or -1.
func (s *habitScan) subjectStart(end int) int {
	k := end
	for k >= 0 {
		switch t := s.tok(k); {
		case t.text == ")":
			depth := 0
			for k >= 0 {
				if s.tok(k).text == ")" {
					depth++
				} else if s.tok(k).text == "(" {
					depth--
					if depth == 0 {
						break
					}
				}
				k--
			}
			k-- // the function name
			if s.tok(k).kind != tokIdent {
				return -1
			}
		case t.kind == tokIdent:
		default:
			return -1
		}
		if s.tok(k-1).text != "." {
			return k
		}
		k -= 2
	}
	return -1
}

// text returns the source of the significant tokens from a to b inclusive,
// with the blanks between them.
func (s *habitScan) text(a, b int) string {
	var sb strings.Builder
	for i := s.sig[a]; i <= s.sig[b]; i++ {
		sb.WriteString(s.toks[i].text)
	}
	return sb.String()
}

// renamedFunctions are names other tools give to what a rule function
// does, with the rule function that does it.
var renamedFunctions = map[string]string{
	"times_fired":          "firings_today",
	"fired_today":          "firings_today",
	"firings":              "firings_today",
	"count_firings":        "firings_today",
	"fire_count":           "firings_today",
	"since_fired":          "minutes_since_fired",
	"minutes_since_firing": "minutes_since_fired",
	"last_fired":           "minutes_since_fired",
}

// renamedFunction points a function by another tool's name to the rule
// function of the same meaning (times_fired("r") is firings_today("r")).
func (s *habitScan) renamedFunction(t habitToken) bool {
	with, ok := renamedFunctions[t.text]
	if !ok || s.known(t.text) {
		return false
	}
	s.add(t.from, fmt.Sprintf("%s(...) is not a function: the rules' name for it is %s(...)", t.text, with),
		"write "+with, replaceTok(t, with))
	return true
}

// extremeFunctions are other tools' functions over a price history, which
// the rules do not keep: what they remember is each position's extremes.
var extremeFunctions = map[string]string{
	"highest": "high_since_open", "max_since": "high_since_open", "highest_since": "high_since_open", "high_since_entry": "high_since_open",
	"lowest": "low_since_open", "min_since": "low_since_open", "lowest_since": "low_since_open", "low_since_entry": "low_since_open",
}

// extremeFunction points highest(...) and its kind to the extremes the
// engine keeps per position (position(sym, side).high_since_open).
func (s *habitScan) extremeFunction(t habitToken) bool {
	field, ok := extremeFunctions[t.text]
	if !ok || s.known(t.text) {
		return false
	}
	s.add(t.from, fmt.Sprintf("%s(...) is not a function: the rules keep no price history, but remember each position's extremes since it opened", t.text),
		fmt.Sprintf(`use position("TSLAUSDT", "long").%s`, field))
	return true
}

// priceFunction points price(...), which rules do not have, to the
// contract's ticker: price("BTCUSDT") is ticker("BTCUSDT").last.
func (s *habitScan) priceFunction(k int, t habitToken) bool {
	if t.text != "price" || s.known(t.text) {
		return false
	}
	end, commas := s.closing(k + 1)
	if end < 0 || len(commas) != 0 {
		return false
	}
	closeTok := s.tok(end)
	s.add(t.from, "price(...) is not a function: a futures contract's last price is ticker(...).last (mark, bid, ask too)",
		"use ticker(\"BTCUSDT\").last", replaceTok(t, "ticker"), habitEdit{closeTok.to, closeTok.to, ".last"})
	return true
}
