package rules

// builtinFuncs documents the expression language's own functions that
// rules may call. It is the list the compiler accepts: every expr builtin
// not named here is disabled (NewCompiler), so the reference, generated
// from this table, cannot miss one. Those left out read the computer's clock
// (now, date, timezone) or serve programs rather than traders (JSON, base64,
// bit operations, type names, maps of pairs).
func builtinFuncs() []FuncDoc {
	list := ArgDoc{"list", "list", "a list, like orders(\"TSLAUSDT\") or positions"}
	pred := ArgDoc{"test", "condition", "a condition on each item: .field reads the item's field, # is the item itself"}
	num := ArgDoc{"x", "number", ""}
	text := ArgDoc{"s", "text", ""}
	return []FuncDoc{
		// Lists.
		{"len", []ArgDoc{{"v", "list or text", ""}}, "number", "", "the number of items of a list, or of characters of a text", `len(positions) == 0`},
		{"all", []ArgDoc{list, pred}, "true/false", "", "test holds for every item (true for an empty list)", `all(positions, .leverage <= 10)`},
		{"any", []ArgDoc{list, pred}, "true/false", "", "test holds for at least one item", `any(orders("TSLAUSDT"), .age_seconds > 600)`},
		{"none", []ArgDoc{list, pred}, "true/false", "", "test holds for no item", `none(positions, .unrealized_pnl_pct < -0.05)`},
		{"one", []ArgDoc{list, pred}, "true/false", "", "test holds for exactly one item", `one(positions, .symbol == "TSLAUSDT")`},
		{"count", []ArgDoc{list, pred}, "number", "", "the number of items for which test holds", `count(positions, .unrealized_pnl < 0) >= 2`},
		{"filter", []ArgDoc{list, pred}, "list", "", "the items for which test holds", `len(filter(positions, .side == "long")) > 0`},
		{"map", []ArgDoc{list, {"value", "formula", "a value computed from each item (.field, #)"}}, "list", "", "the value for each item", `sum(map(positions, .unrealized_pnl)) < -100`},
		{"sum", []ArgDoc{list, {"value", "formula", "optional: a value computed from each item"}}, "number", "", "the sum of the items, or of value for each item", `sum(positions, .unrealized_pnl) < -100`},
		{"find", []ArgDoc{list, pred}, "an item", "", "the first item for which test holds; stops the condition when there is none", `find(positions, .symbol == "TSLAUSDT").size > 0`},
		{"findLast", []ArgDoc{list, pred}, "an item", "", "the last item for which test holds", `findLast(orders("TSLAUSDT"), .side == "buy").price > 0`},
		{"findIndex", []ArgDoc{list, pred}, "number", "", "the position (from 0) of the first item for which test holds, -1 when none", `findIndex(positions, .symbol == "TSLAUSDT") >= 0`},
		{"findLastIndex", []ArgDoc{list, pred}, "number", "", "the position (from 0) of the last item for which test holds, -1 when none", `findLastIndex(positions, .side == "short") >= 0`},
		{"first", []ArgDoc{list}, "an item", "", "the first item of the list; nothing when the list is empty", `first(orders("TSLAUSDT")).age_seconds > 60`},
		{"last", []ArgDoc{list}, "an item", "", "the last item of the list; nothing when the list is empty", `last(orders("TSLAUSDT")).age_seconds > 60`},
		{"take", []ArgDoc{list, {"n", "number", "how many"}}, "list", "", "the first n items", `len(take(positions, 2)) <= 2`},
		{"reverse", []ArgDoc{list}, "list", "", "the items in the opposite order", `len(reverse(positions)) >= 0`},
		{"sort", []ArgDoc{list, {"order", "text", `optional: "asc" (the default) or "desc"`}}, "list", "", "the numbers or texts of the list in order", `first(sort(map(positions, .leverage), "desc")) <= 20`},
		{"sortBy", []ArgDoc{list, {"value", "formula", "what to order by (.field)"}, {"order", "text", `optional: "asc" or "desc"`}}, "list", "", "the items ordered by value", `first(sortBy(positions, .unrealized_pnl)).unrealized_pnl > -500`},
		{"uniq", []ArgDoc{list}, "list", "", "the items with repeats removed", `len(uniq(map(positions, .symbol))) <= 3`},
		{"concat", []ArgDoc{list, {"more", "list", "one or more other lists"}}, "list", "", "the lists one after the other", `len(concat(orders("TSLAUSDT"), orders("NVDAUSDT"))) < 10`},
		{"flatten", []ArgDoc{list}, "list", "", "the items of the lists inside the list, in one list", `len(flatten([orders("TSLAUSDT"), orders("NVDAUSDT")])) < 10`},
		{"reduce", []ArgDoc{list, {"step", "formula", "combines #acc (the result so far) with # (the item)"}, {"initial", "value", "optional: the starting result"}}, "a value", "", "combines the items into one value", `reduce(positions, #acc + .size, 0) < 100`},
		{"keys", []ArgDoc{{"m", "map", `a map, like {"a": 1}`}}, "list", "", "the keys of a map", `len(keys({"a": 1})) == 1`},
		{"values", []ArgDoc{{"m", "map", `a map, like {"a": 1}`}}, "list", "", "the values of a map", `sum(values({"a": 1, "b": 2})) == 3`},
		{"get", []ArgDoc{{"v", "list or map", ""}, {"key", "number or text", "a position from 0 (negative counts from the end) or a key"}}, "a value", "", "the item at key; nothing when there is none, where v[key] would stop the condition", `get(orders("TSLAUSDT"), 0) == nil`},

		// Numbers.
		{"abs", []ArgDoc{num}, "number", "", "x without its sign", `abs(position("TSLAUSDT", "net").size) < 5`},
		{"round", []ArgDoc{num}, "number", "", "x rounded to the nearest whole number (halves away from zero); to show decimals in a message use format", `round(stock("TSLA").bid) > 200`},
		{"floor", []ArgDoc{num}, "number", "", "x rounded down to a whole number", `floor(stock("TSLA").bid) > 200`},
		{"ceil", []ArgDoc{num}, "number", "", "x rounded up to a whole number", `ceil(stock("TSLA").ask) < 300`},
		{"max", []ArgDoc{{"a", "numbers or a list", "two or more numbers, or one list of numbers"}}, "number", "", "the largest", `max(stock("TSLA").bid, 1) > 200`},
		{"min", []ArgDoc{{"a", "numbers or a list", "two or more numbers, or one list of numbers"}}, "number", "", "the smallest", `min(map(positions, .unrealized_pnl_pct)) > -0.05`},
		{"mean", []ArgDoc{{"a", "numbers or a list", ""}}, "number", "", "the average", `mean(map(positions, .leverage)) <= 10`},
		{"median", []ArgDoc{{"a", "numbers or a list", ""}}, "number", "", "the middle value", `median(map(positions, .leverage)) <= 10`},
		{"int", []ArgDoc{{"v", "number or text", ""}}, "number", "", "a whole number: a number cut toward zero, or a text of digits read", `int("12") == 12`},
		{"float", []ArgDoc{{"v", "number or text", ""}}, "number", "", "a number, read from a text if needed", `float("0.5") == 0.5`},

		// Text.
		{"string", []ArgDoc{{"v", "any value", ""}}, "text", "", "v written as a text (numbers with every digit; use format for messages)", `string(orders_count("TSLAUSDT")) == "0"`},
		{"upper", []ArgDoc{text}, "text", "", "s in capital letters", `upper(weekday) == "FRIDAY"`},
		{"lower", []ArgDoc{text}, "text", "", "s in small letters", `lower(weekday) == "friday"`},
		{"trim", []ArgDoc{text, {"chars", "text", "optional: the characters to remove (default spaces)"}}, "text", "", "s without the given characters at both ends", `trim(" a ") == "a"`},
		{"trimPrefix", []ArgDoc{text, {"prefix", "text", ""}}, "text", "", "s without prefix at its start", `trimPrefix("TSLAUSDT", "TSLA") == "USDT"`},
		{"trimSuffix", []ArgDoc{text, {"suffix", "text", ""}}, "text", "", "s without suffix at its end", `trimSuffix("TSLAUSDT", "USDT") == "TSLA"`},
		{"hasPrefix", []ArgDoc{text, {"prefix", "text", ""}}, "true/false", "", "s starts with prefix", `any(positions, hasPrefix(.symbol, "TSLA"))`},
		{"hasSuffix", []ArgDoc{text, {"suffix", "text", ""}}, "true/false", "", "s ends with suffix", `all(positions, hasSuffix(.symbol, "USDT"))`},
		{"indexOf", []ArgDoc{text, {"part", "text", ""}}, "number", "", "where part first appears in s, from 0; -1 when it does not", `indexOf("TSLAUSDT", "USDT") == 4`},
		{"lastIndexOf", []ArgDoc{text, {"part", "text", ""}}, "number", "", "where part last appears in s, from 0; -1 when it does not", `lastIndexOf("TSLAUSDT", "T") == 7`},
		{"replace", []ArgDoc{text, {"old", "text", ""}, {"new", "text", ""}}, "text", "", "s with every old replaced by new", `replace("TSLAUSDT", "USDT", "") == "TSLA"`},
		{"repeat", []ArgDoc{text, {"n", "number", ""}}, "text", "", "s written n times", `repeat("-", 3) == "---"`},
		{"split", []ArgDoc{text, {"sep", "text", ""}}, "list", "", "the parts of s between the separators", `len(split("a,b", ",")) == 2`},
		{"splitAfter", []ArgDoc{text, {"sep", "text", ""}}, "list", "", "the parts of s, each keeping its separator", `len(splitAfter("a,b", ",")) == 2`},
		{"join", []ArgDoc{{"list", "list of text", ""}, {"sep", "text", "optional: what goes between (default nothing)"}}, "text", "", "the texts of the list in one text", `join(map(positions, .symbol), ", ") != ""`},

		// Time.
		{"duration", []ArgDoc{{"d", "text", `a duration like "90s", "15m" or "1h30m"`}}, "duration", "", "a length of time, to add to or compare with times", `now.Add(duration("15m")).Hour() >= 16`},
	}
}

// Builtins returns the documentation of the expression language's own
// functions that rules may call, in reference order.
func Builtins() []FuncDoc { return builtinFuncs() }
