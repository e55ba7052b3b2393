// Look-alikes of ASCII letters and digits from the Cyrillic, Greek and Latin-extended blocks, after
// the UTS #39 confusables data; a small table rather than a dependency because tool names are
// short identifiers and only these scripts are realistic there (NFKD already folds full-width,
// mathematical and other compatibility forms).
const LOOKALIKES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  һ: 'h',
  ӏ: 'l',
  ԛ: 'q',
  ԝ: 'w',
  ь: 'b',
  ү: 'y',
  ɡ: 'g',
  А: 'a',
  В: 'b',
  Е: 'e',
  К: 'k',
  М: 'm',
  Н: 'h',
  О: 'o',
  Р: 'p',
  С: 'c',
  Т: 't',
  У: 'y',
  Х: 'x',
  І: 'l',
  Ј: 'j',
  Ѕ: 's',
  // Greek
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ν: 'v',
  ι: 'i',
  κ: 'k',
  υ: 'u',
  χ: 'x',
  ε: 'e',
  Α: 'a',
  Β: 'b',
  Ε: 'e',
  Ζ: 'z',
  Η: 'h',
  Ι: 'l',
  Κ: 'k',
  Μ: 'm',
  Ν: 'n',
  Ο: 'o',
  Ρ: 'p',
  Τ: 't',
  Χ: 'x',
  Υ: 'y',
  // Latin extended and symbols
  ı: 'i',
  ɑ: 'a',
  ȷ: 'j',
  ℓ: 'l',
  ꮃ: 'w',
  // ASCII that reads as another ASCII letter
  I: 'l',
  '0': 'o',
  '1': 'l',
  '|': 'l',
};

const MARKS = /\p{M}|\p{Cf}/gu;

/**
 * The form two names share when a reader cannot tell them apart: compatibility-decomposed,
 * combining marks and invisible format characters dropped, look-alike letters mapped to ASCII,
 * lower-cased, and `rn` read as `m`. Equal skeletons of different names mean one shadows the other.
 */
export function confusableSkeleton(name: string): string {
  const folded = name.normalize('NFKD').replace(MARKS, '');
  let out = '';
  for (const ch of folded) out += LOOKALIKES[ch] ?? ch;
  return out.toLowerCase().replace(/rn/g, 'm').replace(/vv/g, 'w');
}
