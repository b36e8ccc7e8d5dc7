// Tailwind v4 runs as a PostCSS plugin; Next picks this file up for app/globals.css.
export default {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};
