package rules

// FiringGuide explains when a rule fires, fires again, waits and stops. It
// opens docs/writing-rules.md and is part of the reference engine docs
// writes, word for word (a test holds both to it, and another computes its
// timeline with the engine's own state machine).
const FiringGuide = "## When a rule fires\n\n" +
	"The engine checks every rule's condition on every tick (as soon as new data arrives, and at least once a second). A rule **fires** - " +
	"runs its actions - at the moment its condition **becomes** true, not on every tick that it stays true. " +
	"To fire again, the condition must first turn false and then become true again. Three settings change this:\n\n" +
	"- `for: 30s` - the condition must stay true for 30 seconds without a break before the rule fires. " +
	"If it turns false, or the data it reads is missing, the wait starts over.\n" +
	"- `cooldown: 10m` - after firing, the rule does not fire for 10 minutes. If the condition is still true " +
	"when the 10 minutes are over, the rule fires again (after `for`, if it has one): a rule with a cooldown " +
	"repeats every 10 minutes for as long as its condition holds.\n" +
	"- `once: per_session` or `once: per_day` - the rule fires at most once per market session or per US " +
	"Eastern day. When its condition becomes true again in the same session or day, it waits for the next one.\n\n" +
	"A rule does not fire while its condition is false, while the data the condition reads is missing or too " +
	"old (it never fires on data it does not have), or when it has `enabled: false`.\n\n" +
	"The picture shows one condition, checked every 10 seconds (`T` true, `.` false), and when four versions " +
	"of a rule with that condition fire (`^`):\n\n" +
	"```text\n" +
	FiringTimeline +
	"```\n"

// FiringTimeline is the picture of FiringGuide: the condition's row, then
// one row per setting with ^ where the rule fires.
const FiringTimeline = "" +
	"seconds            0   10  20  30  40  50  60  70  80  90\n" +
	"condition          .   T   T   T   T   T   T   .   T   T\n" +
	"no settings            ^                           ^\n" +
	"for: 20s                       ^\n" +
	"cooldown: 30s          ^           ^               ^\n" +
	"once: per_day          ^\n"
