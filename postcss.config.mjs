// Tailwind 4 through PostCSS (no tailwind.config needed: classes are found in the sources).
export default { plugins: { '@tailwindcss/postcss': {} } };
