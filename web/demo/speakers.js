// The speaking indicator: the session follows the names this page publishes and plays
// (followSpeakers, docs/protocol.md "Speakers"), and each panel's pill says whether its stream
// speaks now (with its level) and whether it holds the floor. window.demo.speaking keeps the
// last state of each, for tests.
import {$, demo} from './ui.js';

let followed = '';

// Follows the page's current names when they changed; none stops following.
export function followPageNames() {
  const session = demo.session;
  const names = [...new Set([demo.publisher && demo.publisher.name, demo.player && demo.player.name].filter(Boolean))];
  const key = session ? `${session.sessionId} ${names.join(' ')}` : '';
  if (key !== followed) {
    followed = key;
    if (session) session.followSpeakers({names}).catch(() => {});
  }
  show();
}

export function watchSpeakers(session) {
  session.on('activeSpeakers', show);
  session.on('dominantSpeaker', show);
}

function show() {
  const session = demo.session;
  demo.speaking = demo.speaking || {};
  for (const [key, id] of [['publisher', 'pubSpeaking'], ['player', 'playSpeaking']]) {
    const name = demo[key] && demo[key].name;
    const speaker = session && name ? session.activeSpeakers.find((s) => s.name === name) : null;
    const floor = !!(session && name && session.dominantSpeaker === name);
    const pill = $(id);
    pill.hidden = !speaker && !floor;
    pill.textContent = speaker ? `speaking ${Math.round(speaker.level)} dB` : 'has the floor';
    pill.classList.toggle('floor', floor);
    if (speaker) demo.speaking[key] = {level: speaker.level, at: Date.now()};
    if (floor) demo.speaking[`${key}Floor`] = true;
  }
}
