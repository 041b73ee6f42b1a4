// The Trellis GraphQL explorer's page script (server/http/graphql-explorer.ts serves it as a file: the page's
// Content-Security-Policy allows no inline script). It asks for an API key once per browser tab, keeps it in
// sessionStorage (never in a URL, never in GraphiQL's localStorage) under the dashboard's own entry, so a tab signed in
// to the dashboard opens the explorer signed in (and signing out of either signs out of both), then renders GraphiQL against /graphql with
// `Authorization: Bearer <key>`, and runs subscriptions over graphql-ws at /graphql/ws (the key goes in the
// connection_init payload, as the platform's WebSocket endpoint expects). Globals from the UMD builds loaded
// before this script: React, ReactDOM, GraphiQL.
(function () {
  'use strict';

  // The dashboard's entry (dashboard/src/auth.ts): one sign-in per tab for both.
  var STORAGE_KEY = 'trellis.dashboard.apiKey';
  var GRAPHQL_URL = '/graphql';
  var SUBSCRIPTIONS_PATH = '/graphql/ws';
  var DEFAULT_QUERY = [
    '# Every Trellis API family in one graph.',
    '# Ctrl-Enter runs, Ctrl-Space completes;',
    '# the Docs panel (left) browses the schema.',
    '# Subscriptions run over /graphql/ws.',
    '',
    'query Viewer {',
    '  viewer {',
    '    username',
    '    defaultEntity {',
    '      name',
    '    }',
    '    teams {',
    '      team',
    '      role',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');

  var signIn = document.getElementById('sign-in');
  var form = document.getElementById('sign-in-form');
  var keyInput = document.getElementById('api-key');
  var signInError = document.getElementById('sign-in-error');
  var explorer = document.getElementById('explorer');
  var signedInAs = document.getElementById('signed-in-as');
  var signOutButton = document.getElementById('sign-out');
  var graphiqlMount = document.getElementById('graphiql');

  function readKey() {
    try {
      return window.sessionStorage.getItem(STORAGE_KEY);
    } catch (error) {
      return null; // storage disabled: ask again
    }
  }

  function storeKey(key) {
    try {
      window.sessionStorage.setItem(STORAGE_KEY, key);
    } catch (error) {
      // storage disabled: the key lives until the page is left
    }
  }

  function forgetKey() {
    try {
      window.sessionStorage.removeItem(STORAGE_KEY);
    } catch (error) {
      // nothing stored
    }
  }

  /** Resolves to the key owner's username, or rejects with a message for the form. */
  function whoIs(key) {
    return fetch(GRAPHQL_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer ' + key },
      body: JSON.stringify({ query: 'query ExplorerSignIn { viewer { username } }' }),
    }).then(
      function (response) {
        if (response.status === 401) throw new Error('This API key is invalid or revoked.');
        if (!response.ok) throw new Error('The platform answered HTTP ' + response.status + '; try again.');
        return response.json().then(function (body) {
          var viewer = body && body.data && body.data.viewer;
          if (!viewer || typeof viewer.username !== 'string') throw new Error('This API key is not accepted.');
          return viewer.username;
        });
      },
      function () {
        throw new Error('The platform cannot be reached.');
      },
    );
  }

  function showSignIn(message) {
    explorer.hidden = true;
    signIn.hidden = false;
    signInError.textContent = message || '';
    signInError.hidden = !message;
    keyInput.value = '';
    keyInput.focus();
  }

  function showExplorer(key, username) {
    signIn.hidden = true;
    explorer.hidden = false;
    signedInAs.textContent = 'Signed in as ' + username;
    var authorization = 'Bearer ' + key;
    var subscriptionUrl = (window.location.protocol === 'https:' ? 'wss://' : 'ws://') + window.location.host + SUBSCRIPTIONS_PATH;
    var fetcher = GraphiQL.createFetcher({
      url: GRAPHQL_URL,
      headers: { authorization: authorization },
      subscriptionUrl: subscriptionUrl,
      wsConnectionParams: { authorization: authorization },
    });
    ReactDOM.createRoot(graphiqlMount).render(
      React.createElement(GraphiQL, { fetcher: fetcher, defaultQuery: DEFAULT_QUERY, shouldPersistHeaders: false }),
    );
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var key = keyInput.value.trim();
    if (!key) return;
    var button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    whoIs(key).then(
      function (username) {
        storeKey(key);
        keyInput.value = '';
        showExplorer(key, username);
      },
      function (error) {
        button.disabled = false;
        showSignIn(error.message);
      },
    );
  });

  signOutButton.addEventListener('click', function () {
    forgetKey();
    // A reload drops GraphiQL, its open subscriptions and the key held in memory at once.
    window.location.reload();
  });

  var stored = readKey();
  if (!stored) {
    showSignIn();
  } else {
    whoIs(stored).then(
      function (username) {
        showExplorer(stored, username);
      },
      function (error) {
        forgetKey();
        showSignIn(error.message);
      },
    );
  }
})();
