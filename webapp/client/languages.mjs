// The editor's language table: the CodeMirror highlighting of each environment (slug in
// nosql/environments.json) and whether its "compile" is only a syntax check (interpreted
// languages: the button says "Check syntax"). An unknown slug gets C's highlighting.
import { cpp } from '@codemirror/lang-cpp';
import { python } from '@codemirror/lang-python';
import { java } from '@codemirror/lang-java';
import { javascript } from '@codemirror/lang-javascript';
import { php } from '@codemirror/lang-php';
import { StreamLanguage } from '@codemirror/language';
import { pascal } from '@codemirror/legacy-modes/mode/pascal';

const LANGUAGES = {
  c: { highlight: () => cpp(), syntaxOnly: false },
  cpp: { highlight: () => cpp(), syntaxOnly: false },
  python3: { highlight: () => python(), syntaxOnly: true },
  java: { highlight: () => java(), syntaxOnly: false },
  nodejs: { highlight: () => javascript(), syntaxOnly: true },
  php: { highlight: () => php(), syntaxOnly: true },
  pascal: { highlight: () => StreamLanguage.define(pascal), syntaxOnly: false },
};

export function languageOf(slug) {
  return LANGUAGES[slug] || LANGUAGES.c;
}
