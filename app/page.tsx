// The console opens on the DAG list.

import { redirect } from 'next/navigation';

export default function Home(): never {
  redirect('/dags');
}
