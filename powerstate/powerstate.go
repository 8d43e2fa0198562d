// Package powerstate holds State, a host's power state, and its four
// values. The drivers report and reach them, the energy package meters
// and plans with them, and the scheduler reserves hosts for them: each
// of those imports this leaf rather than one another (energy used to
// import drivers for the type alone).
//
// It imports nothing.
package powerstate

// State is a host's power state.
type State string

// The power states, in the order of the power cycle: off -> booting ->
// on -> shutting-down -> off.
const (
	Off          State = "off"
	Booting      State = "booting"
	On           State = "on"
	ShuttingDown State = "shutting-down"
)
