// The call state machine's tests go here.
