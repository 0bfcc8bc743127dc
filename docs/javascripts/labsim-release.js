// The reader's OpenZFS release: the page's selector offers the taught ones
// (labsim.web.release_choices()), and the choice is kept in localStorage for every page.

export const RELEASE_KEY = "zfl:zfs-version:v1";

// choices: labsim.web.release_choices() from the page, {control, default, versions: [[name,
// release], ...]}, or null on a page without the selector; value: the reader's release.
export const release = { choices: null, value: null };

export const isTaught = (name) => Boolean(release.choices?.versions.some(([n]) => n === name));

export function storedRelease() {
  try {
    const value = localStorage.getItem(RELEASE_KEY);
    if (isTaught(value)) return value;
  } catch { /* storage disabled */ }
  return release.choices.default;
}

export const releaseNote = (value) => `\x1b[2mOpenZFS ${value} now: a fresh machine\x1b[0m\r\n`;
