// Package decimals is the project's exact decimal arithmetic on integers:
// Fixed, a coefficient of up to 128 bits times a power of ten, with the
// operations, text and float conversions that the simulator, the State and
// the exchange client repeat on every tick.
//
// It exists beside shopspring/decimal, which stays the definition of every
// number that is stored or sent, for speed on those hot paths: decimal
// allocates for nearly every operation and writes its text through
// math/big, Fixed never allocates. Every operation gives the value decimal
// gives (tests compare them on random numbers); one whose result does not
// fit marks it bad, and the caller then computes in decimal.
package decimals
