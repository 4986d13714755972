// The Sluice browser SDK as an ES module: `import Sluice, {connect} from '/sdk/sluice.mjs'`.
// The SDK itself is sluice.js (documented there); importing it runs it once and sets globalThis.Sluice.
import './sluice.js';

const Sluice = globalThis.Sluice;
export default Sluice;
export const {connect, SluiceError, Session, Stream, Call, version} = Sluice;
