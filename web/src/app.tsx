export function App() {
  return (
    <main>
      <h1>toolbridge</h1>
    </main>
  );
}
