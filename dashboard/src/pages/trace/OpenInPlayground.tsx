import { storePlaygroundDraft, PLAYGROUND_PATH } from '../inference/playground-draft';
import { useRouter } from '../../router';
import type { Conversation } from './chat-messages';
import { playgroundDraftOf } from './playground-draft-of';

/** "Open in playground": the call's messages, model and parameters handed to the Inference page's playground. */
export function OpenInPlayground({ conversation }: { conversation: Conversation }) {
  const { navigate } = useRouter();
  return (
    <button
      type="button"
      className="button open-in-playground"
      onClick={() => {
        storePlaygroundDraft(playgroundDraftOf(conversation));
        navigate(PLAYGROUND_PATH);
      }}
    >
      Open in playground
    </button>
  );
}
