// Package rules is the rule language of tickrules: the YAML files that
// traders who are not programmers write, loaded strictly, compiled once, and
// every mistake reported where it is.
//
// A rule file has optional defaults (product type, margin coin, margin mode,
// position mode) and a list of rules. A rule has a name, a condition (when:,
// an expr expression over the polled State), timing (for, cooldown, once),
// a priority, an optional for_each list of symbols, and actions (place_order,
// cancel_all, log...). An action parameter is a literal or, when it starts
// with "=", a formula compiled at load.
//
// The action kinds are not declared here: each is one file of package
// actions, beside how it plans its requests, and the loader is given their
// declarations (LoadOptions.Actions, an ActionDef each: parameters, the
// exchange operation, Check). A kind's Check states the rules between its
// parameters through ActionCheck; the rules shared by several kinds (one of
// two, an order's fields) are ActionCheck's methods.
//
// Load reads a directory tree of rule files and returns a RuleSet, or every
// finding (rulefmt.Errors) with file, line and column, the source line, a caret and
// a hint. ${ENV} references are resolved before parsing without moving any
// position, and expression errors map into the YAML file for plain, quoted
// and block scalars. Each rule knows what it reads (Rule.Reads) so polling
// covers exactly that; PollingBudget prices the pollers' plan for it
// (assemble.Demand) against the rate limits.
//
// The loader, the JSON Schema (Schema) and the reference (Reference) are
// generated from the same tables: FileKeys, DefaultsKeys and RuleKeys here,
// the action kinds' declarations (given to Schema and Reference), and Variables, Functions and marketdata.Objects on the expression
// side (compile.go, env.go, functions.go), so they cannot disagree.
//
// Conditions and formulas are checked and compiled by expr and run on
// expr's VM. The backtest alone also compiles the checked tree into Go
// closures over the State (LoadOptions.Closures, ClosureCompiler, made by
// backtest/internal/native); a program with a node it does not compile runs
// on the VM, with the same results and errors.
//
// docs/writing-rules.md is the guide for authors; docs/reference.md the
// generated reference.
package rules
